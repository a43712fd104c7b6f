import type { Client } from '@temporalio/client';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/**
 * What a use case may use (decision 0046): the read models, the Temporal client, configuration and the
 * logger. Wired once by the process that serves the API and handed to every use case it calls.
 */
export interface UseCaseDeps {
  db: Database;
  temporal: Client;
  config: Config;
  logger: Logger;
}
