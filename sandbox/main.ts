import { loadConfigOrExit } from '../platform/config.ts';
import { startSandbox } from './index.ts';

/** Runs the sandbox parties on their own (docker-compose's `sandbox` service). */
const config = loadConfigOrExit();
const sandbox = await startSandbox({
  host: config.HOST,
  smppPort: config.SMPP_PORT,
  httpPort: config.SANDBOX_HTTP_PORT,
  banksPort: config.SANDBOX_BANKS_PORT,
  banksPublicUrl: config.SANDBOX_BANKS_PUBLIC_URL,
  merchantPort: config.SANDBOX_MERCHANT_PORT,
  acquirerPort: config.SANDBOX_ACQUIRER_PORT,
  acquirerApiKey: config.COLLECT_ACQUIRER_API_KEY,
  acquirerPublicUrl: config.SANDBOX_ACQUIRER_PUBLIC_URL,
  bureauPort: config.SANDBOX_BUREAU_PORT,
  bureauApiKey: config.LENDING_BUREAU_API_KEY,
  smppSystemId: config.SMPP_SYSTEM_ID,
  smppPassword: config.SMPP_PASSWORD,
  smppRefuseMessagePayload: config.SANDBOX_SMSC_REFUSES_MESSAGE_PAYLOAD,
  chatAppApiKey: config.CHATAPP_API_KEY,
  chatAppPhoneNumberId: config.CHATAPP_PHONE_NUMBER_ID,
  chatAppAppSecret: config.CHATAPP_APP_SECRET,
  hlrApiKey: config.HLR_API_KEY,
  hlrApiSecret: config.HLR_API_SECRET,
});
// Where the gateway publishes the notification key, as this container reaches the API
// (docker-compose: http://api:3000, not the browser-facing http://localhost:3000).
const gatewayUrl = (config.SANDBOX_GATEWAY_URL ?? config.PUBLIC_BASE_URL)?.replace(/\/+$/, '');
if (gatewayUrl) {
  sandbox.merchant.trustGateway(`${gatewayUrl}/collect/.well-known/notification-key.pem`);
  // The chat-app status webhook; the API may not listen yet: its check is made again before each delivery.
  void sandbox.http.subscribeChatAppWebhook({
    callbackUrl: `${gatewayUrl}/messaging/chatapp/webhook`,
    verifyToken: config.CHATAPP_VERIFY_TOKEN,
  });
} else {
  console.warn(
    'SANDBOX_GATEWAY_URL unset: the sandbox merchant cannot check notification SIGNATUREs, and chat-app statuses are not sent',
  );
}
console.log(
  `Sandbox SMSC ${sandbox.smpp.url}; providers ${sandbox.http.url}; banks ${sandbox.banks.url} (browsers: ${sandbox.banks.publicUrl}); merchant ${sandbox.merchant.url}; acquirer ${sandbox.acquirer.url}; bureau ${sandbox.bureau.url}`,
);
const stop = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
