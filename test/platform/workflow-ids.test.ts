import { describe, expect, it } from 'vitest';
import * as collect from '../../domain/collect/processes.ts';
import * as messaging from '../../domain/messaging/processes.ts';
import * as openbanking from '../../domain/openbanking/processes.ts';
import * as webhooks from '../../domain/webhooks/processes.ts';

/**
 * Workflow ids are `<process>-<business id>`, declared per service in domain/<svc>/processes.ts
 * (decision 0025). The prefixes are read off the id functions themselves: no two processes of the
 * platform share one, and none is the start of another service's, so an id always names its process.
 */
const BUSINESS_ID = 'b1z';

function prefixesOf(module: Record<string, unknown>): string[] {
  return Object.entries(module)
    .filter(([name, value]) => name.endsWith('WorkflowId') && typeof value === 'function')
    .map(([name, value]) => {
      const id = (value as (...ids: string[]) => string)(BUSINESS_ID, BUSINESS_ID);
      const at = id.indexOf(BUSINESS_ID);
      if (at <= 0) throw new Error(`${name} does not start with a prefix: ${id}`);
      return id.slice(0, at);
    });
}

const services = { messaging, collect, openbanking, webhooks } as Record<string, Record<string, unknown>>;

describe('workflow ids', () => {
  const prefixes = Object.entries(services).flatMap(([service, module]) =>
    prefixesOf(module).map((prefix) => ({ service, prefix })),
  );

  it('every service declares its workflow ids', () => {
    for (const service of Object.keys(services)) {
      expect(prefixes.filter((entry) => entry.service === service).length, service).toBeGreaterThan(0);
    }
  });

  it('are `<process>-<business id>`, with a prefix no other service’s id starts with', () => {
    for (const { service, prefix } of prefixes) {
      expect(prefix, service).toMatch(/^[a-z][a-z0-9-]*-$/);
      const clashing = prefixes.filter(
        (other) =>
          other.service !== service && (other.prefix.startsWith(prefix) || prefix.startsWith(other.prefix)),
      );
      expect(clashing, `${service} ${prefix}`).toEqual([]);
    }
  });
});
