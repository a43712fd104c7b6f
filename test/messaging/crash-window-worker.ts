import { openDatabase } from '../../db/client.ts';
import { loadConfigOrExit, requireDatabaseUrl } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { connectTemporal, runWorker } from '../../platform/runtime.ts';
import { platformServices } from '../../platform/services.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';

/**
 * A worker process like `npm run worker` (platform/worker-main.ts) whose local activities
 * recordMessageOutcome and recordMessageOutcomes (a batch's) stop right after its database write: it prints `OUTCOME WRITTEN <messageId>`
 * and never completes, so that the test can SIGKILL the process inside the crash window of decision
 * 0035 (the write landed, the workflow task that runs the local activity never completed).
 */
const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'crash-window-worker' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'the crash-window worker'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const temporal = await connectTemporal(config, logger);
const services = platformServices.map((service) =>
  service.name !== 'messaging'
    ? service
    : {
        ...service,
        worker: (context: Parameters<typeof service.worker>[0]) => {
          const part = service.worker(context);
          const record = part.activities.recordMessageOutcome as (input: {
            messageId: string;
          }) => Promise<string>;
          const recordMany = part.activities.recordMessageOutcomes as (input: {
            outcomes: { messageId: string }[];
          }) => Promise<Record<string, string>>;
          return {
            ...part,
            activities: {
              ...part.activities,
              async recordMessageOutcome(input: { messageId: string }) {
                await record(input);
                process.stdout.write(`OUTCOME WRITTEN ${input.messageId}\n`);
                return new Promise<string>(() => {});
              },
              // The same window for a batch's outcomes (decision 0074).
              async recordMessageOutcomes(input: { outcomes: { messageId: string }[] }) {
                await recordMany(input);
                for (const { messageId } of input.outcomes)
                  process.stdout.write(`OUTCOME WRITTEN ${messageId}\n`);
                return new Promise<Record<string, string>>(() => {});
              },
            },
          };
        },
      },
);
await runWorker({
  config,
  db: database.db,
  client: temporal.client,
  logger,
  workflowBundlePath: await ensureWorkflowBundle(),
  services,
});
logger.info({}, 'worker running');
