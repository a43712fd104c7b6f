import type { ActivityFunctions } from '../../activities/shared/deps.ts';
import { connectTemporal, runWorker } from '../../cmd/runtime.ts';
import { platformServices } from '../../cmd/services.ts';
import { openDatabase } from '../../db/client.ts';
import { loadConfigOrExit, requireDatabaseUrl } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';

/**
 * A worker process like `npm run worker` (cmd/worker-main.ts) that stops inside the crash window of
 * a local activity (decision 0035): each activity named in CRASH_WINDOW_ACTIVITIES (comma-separated)
 * does its real work, prints `CRASH WINDOW <activity> <input as JSON>` and never completes. The test then
 * SIGKILLs the process: the write landed, the workflow task that ran the local activity never completed.
 * Start it with `workerProcesses(env, 'crashWindow')` (test/support/worker-process.ts).
 */
const stopIn = new Set((process.env.CRASH_WINDOW_ACTIVITIES ?? '').split(',').filter(Boolean));

function stoppingAfterWrite(activities: ActivityFunctions): ActivityFunctions {
  const wrapped: ActivityFunctions = { ...activities };
  for (const [name, activity] of Object.entries(activities)) {
    if (!stopIn.has(name)) continue;
    wrapped[name] = async (...args: unknown[]) => {
      await (activity as (...input: unknown[]) => Promise<unknown>)(...args);
      process.stdout.write(`CRASH WINDOW ${name} ${JSON.stringify(args[0])}\n`);
      return new Promise<never>(() => {});
    };
  }
  return wrapped;
}

const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'crash-window-worker' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'the crash-window worker'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const temporal = await connectTemporal(config, logger);
const services = platformServices.map((service) => ({
  ...service,
  worker: (context: Parameters<typeof service.worker>[0]) => {
    const part = service.worker(context);
    return { ...part, activities: stoppingAfterWrite(part.activities) };
  },
}));
await runWorker({
  config,
  db: database.db,
  client: temporal.client,
  logger,
  workflowBundlePath: await ensureWorkflowBundle(),
  services,
});
logger.info({}, 'worker running');
