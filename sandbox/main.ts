import { loadConfigOrExit } from '../platform/config.ts';
import { startSandbox } from './index.ts';

/** Runs the sandbox parties on their own (docker-compose's `sandbox` service). */
const config = loadConfigOrExit();
const sandbox = await startSandbox({
  host: config.HOST,
  smppPort: config.SMPP_PORT,
  httpPort: config.SANDBOX_HTTP_PORT,
  smppSystemId: config.SMPP_SYSTEM_ID,
  smppPassword: config.SMPP_PASSWORD,
});
console.log(`Sandbox SMSC ${sandbox.smpp.url}; providers ${sandbox.http.url}`);
const stop = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
