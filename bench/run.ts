import { startDevServer } from '../platform/dev-server.ts';
import { resolveTemporalCli } from '../platform/temporal-cli.ts';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';
import { startIsolatedPlatform } from '../test/support/isolated-platform.ts';
import { benchCollect } from './collect.ts';
import type { BenchContext } from './context.ts';
import { benchMessaging } from './messaging.ts';
import { benchOpenBanking } from './openbanking.ts';

/**
 * `npm run bench [-- <section>...]`: figures, not pass/fail. Starts an in-memory Temporal dev server and
 * an isolated platform (its own PostgreSQL database at DATABASE_URL), then runs each section (all by
 * default). The load generator runs in the same process as the platform (2 cores are shared).
 */
const sections: Record<string, (context: BenchContext) => Promise<void>> = {
  messaging: benchMessaging,
  collect: benchCollect,
  openbanking: benchOpenBanking,
};
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in sections));
if (unknown.length > 0) {
  console.error(`Unknown section(s): ${unknown.join(', ')}; known: ${Object.keys(sections).join(', ')}`);
  process.exit(2);
}
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
const devServer = await startDevServer({ cliPath });
const platform = await startIsolatedPlatform({
  temporalAddress: devServer.address,
  workflowBundlePath: await ensureWorkflowBundle(),
  receiptDelayMs: 0,
  env: {
    LOG_LEVEL: 'silent',
    DATABASE_POOL_SIZE: '20',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
    // Collect: the production batching and request timeout, retries shortened to fit the run.
    COLLECT_NOTIFY_BATCH_WINDOW: '1s',
    COLLECT_NOTIFY_REQUEST_TIMEOUT: '15s',
    COLLECT_NOTIFY_RETRY_SCHEDULE: '1s,5s,15s,30s,60s',
    // Open banking: the production bank request timeout (the test default is 5s).
    OPENBANKING_BANK_REQUEST_TIMEOUT: '20s',
  },
});
console.log(`Platform up (Temporal ${devServer.address}); concurrency ${concurrency}.`);

for (const name of requested.length > 0 ? requested : Object.keys(sections)) {
  console.log(`\n== ${name} ==`);
  await sections[name]?.({ platform, concurrency });
}

await platform.stop();
await devServer.stop();
process.exit(0);
