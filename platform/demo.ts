import { readFileSync } from 'node:fs';
import path from 'node:path';
import { verifyWebhook } from '../domain/webhooks/signature.ts';
import { startReceiver } from '../sandbox/webhook-receiver.ts';

/**
 * `npm run demo`: drives the running platform (`npm start`) through its public HTTP API the way an
 * integrator would, printing each step and a Temporal Web UI link for every workflow it started.
 * Options: API_URL (default http://127.0.0.1:3000), AT (access token; default: the sandbox token that
 * `npm start` wrote to DATA_DIR/sandbox-token), TEMPORAL_UI_URL (default http://127.0.0.1:8233).
 */
const apiUrl = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const uiUrl = process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233';
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const token = process.env.AT ?? readSandboxToken();

function readSandboxToken(): string {
  const file = path.resolve(process.env.DATA_DIR ?? 'data', 'sandbox-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    console.error(
      `No access token: set AT, or start the platform with \`npm start\` first (it writes ${file}).`,
    );
    process.exit(2);
  }
}

let step = 0;
const say = (text: string) => console.log(`\n${++step}. ${text}`);
const show = (label: string, value: unknown) => console.log(`   ${label}: ${JSON.stringify(value)}`);
const workflowLink = (workflowId: string) =>
  `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`;

async function call(method: string, route: string, body?: unknown) {
  const url = new URL(`${apiUrl}/messaging${route}`);
  url.searchParams.set('at', token);
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  console.log(`   ${method} /messaging${route} → ${response.status}`);
  if (response.status >= 400) throw new Error(`${method} ${route} failed: ${JSON.stringify(json)}`);
  return json;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

say(`Health of ${apiUrl}`);
const health = await fetch(`${apiUrl}/health`);
show('health', await health.json());
if (health.status !== 200) throw new Error('the platform is not ready; is `npm start` running?');

const receiver = await startReceiver();
console.log(`   a local webhook receiver listens at ${receiver.url}`);
try {
  say('Correct and validate a national-format number');
  show('result', await call('POST', '/numberCorrection', { number: '0888 123 456', country: 'BG' }));

  say('Register and confirm an alphanumeric sender ID');
  const senderId = `DEMO${String(Date.now()).slice(-5)}`;
  const registration = await call('POST', '/senderId', { senderId });
  show('registered', registration);
  console.log(`   workflow: ${workflowLink(`sender-id-${registration.id}`)}`);
  show('confirmed', await call('POST', `/senderId/confirm/${registration.id}`));

  say('Send an SMS from the sender ID with a delivery-report URL');
  const sms = await call('POST', '/sms', {
    to: '+359888123456',
    from: senderId,
    message: 'Hello from the demo',
    dlrUrl: receiver.url,
  });
  show('accepted', sms);
  console.log(`   workflow: ${workflowLink(`sms-${sms.id}`)}`);
  const delivered = await until('the delivery receipt', async () => {
    const message = await call('GET', `/sms/${sms.id}`);
    return ['accepted', 'scheduled', 'sending', 'submitted'].includes(String(message.status))
      ? undefined
      : message;
  });
  show('final status', delivered.status);

  say('Receive the signed delivery report and verify its signature');
  const report = await until('the delivery report', async () => receiver.requests[0]);
  show('report', JSON.parse(report.body));
  const endpoints = (await call('GET', '/webhooks/endpoints')).items as { url: string; secret: string }[];
  const secret = endpoints.find((endpoint) => endpoint.url === receiver.url)?.secret ?? '';
  show(
    'signature valid',
    verifyWebhook(secret, report.headers as Record<string, string>, report.body, 300).valid,
  );

  say('Schedule an SMS 10 seconds ahead and list scheduled messages');
  const scheduled = new Date(Date.now() + 10_000).toISOString();
  const later = await call('POST', '/sms', {
    to: '+359888123457',
    from: senderId,
    message: 'Later',
    scheduled,
  });
  console.log(`   workflow: ${workflowLink(`sms-${later.id}`)}`);
  show('scheduled', (await call('GET', `/sms?scheduled=${scheduled.slice(0, 10)}`)).items);

  say('Send a chat-app message');
  const chat = await call('POST', '/chatapp', {
    to: '+359888123458',
    from: senderId,
    message: 'Hello on chat',
  });
  console.log(`   workflow: ${workflowLink(`sms-${chat.id}`)}`);

  say('Look up a number (HLR); the result is POSTed to the callback URL');
  const lookup = await call('POST', '/hlr', { number: '+359888123456', callBackUrl: receiver.url });
  console.log(`   workflow: ${workflowLink(`hlr-${lookup.id}`)}`);
  const result = await until('the HLR result', async () =>
    receiver.requests.find((request) => request.body.includes('hlr.result')),
  );
  show('HLR result', JSON.parse(result.body));

  say('Reference data');
  show('first operators of BG', ((await call('GET', '/mccmnc/BG?Page=1')).items as unknown[]).slice(0, 2));
  show('prefixes of BG', await call('GET', '/prefixes/BG'));

  console.log(
    `\nDone. Browse every workflow in the Temporal Web UI: ${uiUrl}/namespaces/${namespace}/workflows`,
  );
  console.log(`The messaging reference: ${apiUrl}/messaging/docs`);
} finally {
  await receiver.stop();
}
