import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../platform/dev-server.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';
import { recordHistories } from './record-histories.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

/**
 * One real Temporal dev server (in memory) and one workflow bundle for the whole run; each test file
 * gets its own database, task queue and sandbox parties (test/support/platform.ts).
 */
export default async function setup(project: TestProject) {
  const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
  let server: DevServer | undefined;
  const [started, bundlePath] = await Promise.all([startDevServer({ cliPath }), ensureWorkflowBundle()]);
  server = started;
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    if (process.env.RECORD_HISTORIES_DIR && server)
      await recordHistories(server.address, process.env.RECORD_HISTORIES_DIR);
    await server?.stop();
  };
}
