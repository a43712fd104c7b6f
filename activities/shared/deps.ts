import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/**
 * What every service's activities may touch, injected so that tests and the embedded stack wire the same
 * code. A service whose activities call outside parties adds its connectors (see its index.ts).
 */
export interface ActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  /** Outbound HTTP (webhooks, merchant notifications, billing callbacks); defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Activities of one service, by name: each name is an activity type registered with the worker. */
export type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;
