import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../platform/dev-server.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';
import {
  type EmbeddedPostgres,
  existingTestDatabaseUrl,
  probeTarget,
  startEmbeddedPostgres,
} from './embedded-postgres.ts';
import { recordHistories } from './record-histories.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    /** Set only when the suite started its own PostgreSQL (test/support/embedded-postgres.ts). */
    embeddedDatabaseUrl?: string;
  }
}

/**
 * One real Temporal dev server (in memory) and one workflow bundle for the whole run; each test file
 * gets its own database, task queue and sandbox parties (test/support/platform.ts). The PostgreSQL
 * server is DATABASE_URL, else the one on 127.0.0.1:5432, else (nothing answers there) an embedded one
 * started here: its URL becomes DATABASE_URL of the test workers (test/support/setup-env.ts) and of the
 * processes they spawn.
 */
export default async function setup(project: TestProject) {
  const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
  let server: DevServer | undefined;
  let postgres: EmbeddedPostgres | undefined;
  const startPostgres = async () => {
    if (await existingTestDatabaseUrl()) return;
    postgres = await startEmbeddedPostgres();
    process.env.DATABASE_URL = postgres.url;
    const { host, port } = probeTarget();
    console.log(
      `No DATABASE_URL and nothing on ${host}:${port}: the suite runs on an embedded PostgreSQL (${postgres.url})`,
    );
    project.provide('embeddedDatabaseUrl', postgres.url);
  };
  const [started, bundlePath] = await Promise.all([
    startDevServer({ cliPath }),
    ensureWorkflowBundle(),
    startPostgres(),
  ]);
  server = started;
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    if (process.env.RECORD_HISTORIES_DIR && server)
      await recordHistories(server.address, process.env.RECORD_HISTORIES_DIR);
    await server?.stop();
    await postgres?.stop();
  };
}
