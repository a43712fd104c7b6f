import type { Client } from '@temporalio/client';
import type { ActivityFunctions } from '../activities/shared/deps.ts';
import type { ServiceApi } from '../api/app.ts';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';

/** What a worker process hands each service when it assembles its workers. */
export interface WorkerContext {
  config: Config;
  db: Database;
  /** For worker start hooks that signal or schedule workflows (delivery receipts, the bank directory). */
  client: Client;
  logger: Logger;
}

/** A service's part of one worker process: its activities, and what runs beside them. */
export interface ServiceWorker {
  activities: ActivityFunctions;
  /** Runs once the workers poll (e.g. the bank directory's first sync and its schedule). */
  started?(): Promise<void>;
  /** Releases what the part opened (carrier sessions), after the workers stopped. */
  close?(): Promise<void>;
}

/**
 * One service of the platform, as the platform composes it (cmd/services.ts): its name, its API
 * app and where it is mounted, and its part of a worker. Its workflows are in the bundle entry
 * (workflows/index.ts), its configuration in platform/config.ts; each of those is one line per service.
 */
export interface PlatformServiceModule {
  /** Also the `PlatformService` search attribute of its workflows. */
  name: string;
  /** Its API app, mounted at `basePath` of the platform's HTTP application; none for an engine with no API. */
  api?: ServiceApi;
  worker(context: WorkerContext): ServiceWorker;
}
