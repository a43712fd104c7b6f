import { loadConfigOrExit } from '../platform/config.ts';
import { startSandbox } from './index.ts';

/** Runs the sandbox parties on their own (docker-compose's `sandbox` service). */
const config = loadConfigOrExit();
const sandbox = await startSandbox({
  host: config.HOST,
  smppPort: config.SMPP_PORT,
  httpPort: config.SANDBOX_HTTP_PORT,
  banksPort: config.SANDBOX_BANKS_PORT,
  merchantPort: config.SANDBOX_MERCHANT_PORT,
  smppSystemId: config.SMPP_SYSTEM_ID,
  smppPassword: config.SMPP_PASSWORD,
});
// Where the gateway publishes the notification key (docker-compose: the api service's public URL).
if (config.PUBLIC_BASE_URL) {
  sandbox.merchant.trustGateway(`${config.PUBLIC_BASE_URL}/collect/.well-known/notification-key.pem`);
}
console.log(
  `Sandbox SMSC ${sandbox.smpp.url}; providers ${sandbox.http.url}; banks ${sandbox.banks.url}; merchant ${sandbox.merchant.url}`,
);
const stop = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
