import { loadConfigOrExit } from '../platform/config.ts';
import { startConfiguredSandbox } from './index.ts';

/** Runs the sandbox parties on their own (docker-compose's `sandbox` service). */
const config = loadConfigOrExit();
const sandbox = await startConfiguredSandbox(config, config.HOST);
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
