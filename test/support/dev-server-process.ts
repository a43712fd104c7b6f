import { startDevServer } from '../../platform/dev-server.ts';

/**
 * `node --import tsx test/support/dev-server-process.ts '<options JSON>'`: starts a Temporal dev server
 * through platform/dev-server.ts (as `npm start` does), prints `ready` and runs until it is killed.
 * Tests SIGKILL this process to leave its dev server behind, as a crash of `npm start` would.
 */
const options = JSON.parse(process.argv[2] ?? '{}');
await startDevServer(options);
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
