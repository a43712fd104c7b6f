import type { Client } from '@temporalio/client';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/** What every request handler may use; wired once by the process that serves the API. */
export interface ApiDeps {
  db: Database;
  temporal: Client;
  config: Config;
  logger: Logger;
}

export interface AppEnv {
  Variables: {
    deps: ApiDeps;
    requestId: string;
  };
}
