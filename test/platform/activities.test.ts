import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { platformServices } from '../../cmd/services.ts';
import { mergeActivities } from '../../cmd/worker.ts';
import type { Database } from '../../db/client.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';

/**
 * Activity types are plain names (`submitToCarrier`), registered by each service from its own object.
 * Two services registering the same name would share one implementation without a word: the worker
 * refuses to start instead.
 */
describe('activities of the services', () => {
  it('stop the worker when two services register the same name', () => {
    const record = async () => 'one';
    const other = async () => 'two';
    expect(() =>
      mergeActivities([
        { service: 'messaging', activities: { recordStatus: record } },
        { service: 'lending', activities: { recordStatus: other } },
      ]),
    ).toThrow('Activity "recordStatus" is registered by both messaging and lending');
  });

  it('of the platform register distinct names, each once', async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    // Building a service's worker part connects to nothing (carriers connect on first use).
    const parts = platformServices.map((service) => ({
      service: service.name,
      ...service.worker({
        config,
        db: {} as Database,
        client: {} as Client,
        logger: createLogger('silent'),
      }),
    }));
    const merged = mergeActivities(parts);
    const count = parts.reduce((sum, part) => sum + Object.keys(part.activities).length, 0);
    expect(Object.keys(merged)).toHaveLength(count);
    expect(count).toBeGreaterThan(30);
    for (const part of parts) await part.close?.();
  });
});
