import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CollectMerchant, createCollectClient, parseLines } from '../clients/src/collect.ts';
import { createMessagingClient } from '../clients/src/messaging.ts';
import { formatExpTime } from '../domain/epay-time.ts';
import { verifyWebhook } from '../domain/webhooks/signature.ts';
import { startReceiver } from '../sandbox/webhook-receiver.ts';
import { bodyOf, printCalls } from './demo-client.ts';
import { demoLending } from './demo-lending.ts';
import { configureCarrierFailover } from './demo-messaging-failover.ts';
import { demoOpenBanking } from './demo-openbanking.ts';
import { readSandboxParties, SANDBOX_PARTIES_FILE } from './sandbox-parties.ts';

/**
 * `npm run demo`: drives the running platform (`npm start` in sandbox mode) through its public HTTP API
 * the way an integrator would, with the typed client of each service (clients/, decision 0058), all four services, printing each step and a Temporal Web UI link for every
 * workflow it started. It needs no setup: it reads what `npm start` wrote to DATA_DIR (default `data`):
 * the sandbox access token (`sandbox-token`) and the sandbox parties (`sandbox-parties.json`: the API and
 * Web UI URLs, the operator token, the collect merchant, the lending tenant's keys, the sandbox URLs).
 * Overrides: API_URL, AT (access token), TEMPORAL_UI_URL, ADMIN_TOKEN (operator token), COLLECT_MIN +
 * COLLECT_SECRET (another merchant), SANDBOX_MERCHANT_URL.
 */
const dataDir = path.resolve(process.env.DATA_DIR ?? 'data');
const parties = readSandboxParties(dataDir);
const apiUrl = process.env.API_URL ?? parties?.apiUrl ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const uiUrl = process.env.TEMPORAL_UI_URL ?? parties?.temporalUiUrl ?? 'http://127.0.0.1:8233';
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const token = process.env.AT ?? readSandboxToken();
const adminToken = process.env.ADMIN_TOKEN ?? parties?.adminToken;

function readSandboxToken(): string {
  const file = path.join(dataDir, 'sandbox-token');
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

/** The messaging gateway's typed client with the account's access token (the `at` query parameter). */
const messaging = createMessagingClient(apiUrl, token);
messaging.use(printCalls({ withQuery: true }));

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// --- Payment collection (ePay-style ENCODED/CHECKSUM protocol) ----------------------------------

const sandboxMerchantUrl =
  process.env.SANDBOX_MERCHANT_URL ??
  parties?.collect.sandboxMerchantUrl ??
  `http://127.0.0.1:${process.env.SANDBOX_MERCHANT_PORT ?? 4030}`;

type CollectClient = ReturnType<typeof createCollectClient>;

/** The merchant's typed client (clients/src/collect.ts): its packets signed with its secret. */
function collectClientOf(merchant: CollectMerchant): CollectClient {
  const collect = createCollectClient(apiUrl, merchant);
  collect.use(printCalls());
  return collect;
}

/** The packet's `KEY=VALUE` lines, as the demo prints them. */
const packetText = (packet: { ENCODED: string }) =>
  Buffer.from(packet.ENCODED, 'base64').toString('utf8').replaceAll('\n', ' | ');

/** An ENCODED operation's `KEY=VALUE` answer (read with `parseAs: 'text'`): printed, then its fields. */
function linesOf(answer: { data?: string; error?: string; response: Response }, what: string) {
  const body = answer.data ?? answer.error ?? '';
  for (const line of body.trim().split('\n')) console.log(`     ${line}`);
  if (!answer.response.ok) throw new Error(`${what} failed: ${body.trim()}`);
  return parseLines(body);
}

/** EXP_TIME `DD.MM.YYYY hh:mm:ss` in the gateway's time zone, `offsetMs` from now. */
const expTimeIn = (offsetMs: number) => formatExpTime(new Date(Date.now() + offsetMs));

interface ReceivedRecord {
  receivedAt: string;
  checksumValid: boolean;
  signatureValid: boolean;
  lines: { invoice: string; status: string }[];
  httpStatus: number;
  reply: string;
}

/**
 * Waits until the gateway has delivered the invoice's notification and shows both sides: the gateway's
 * record (GET /collect/notifications: delivery and attempts) and what the sandbox merchant received
 * (GET <sandbox merchant>/<MIN>/notifications: the lines, whether CHECKSUM and SIGNATURE verified, its
 * answer). The sandbox merchant answers OK only when both verify; a failed check is answered ERR.
 */
async function showNotification(merchant: CollectMerchant, invoice: string) {
  // Without printCalls: the demo polls, and prints the record once delivered.
  const collect = createCollectClient(apiUrl, merchant);
  const notification = await until(`the notification of invoice ${invoice}`, async () => {
    const answer = await collect.GET('/notifications', {
      params: { query: collect.packet({ INVOICE: invoice }) },
    });
    if (!answer.data)
      throw new Error(`GET /collect/notifications: ${answer.response.status} ${answer.error}`);
    const [found] = answer.data.notifications;
    return found && found.delivery !== 'pending' ? found : undefined;
  });
  const line = [
    `INVOICE=${invoice}`,
    `STATUS=${notification.status}`,
    ...(notification.payTime ? [`PAY_TIME=${notification.payTime}`] : []),
    ...(notification.stan ? [`STAN=${notification.stan}`] : []),
    ...(notification.bcode ? [`BCODE=${notification.bcode}`] : []),
  ].join(':');
  console.log(
    `   the gateway's record: GET /collect/notifications (ENCODED of MIN and INVOICE, CHECKSUM) → 200`,
  );
  console.log(`     ${line}`);
  for (const attempt of notification.attempts) {
    console.log(
      `     attempt ${attempt.attempt}: HTTP ${attempt.httpStatus}, merchant answered ${attempt.reply} ` +
        `(${attempt.batchSize} invoice${attempt.batchSize === 1 ? '' : 's'} in that POST)`,
    );
  }
  console.log(`     delivery: ${notification.delivery}`);
  if (notification.delivery !== 'delivered')
    throw new Error('the sandbox merchant did not accept the notification');

  const receivedUrl = `${sandboxMerchantUrl}/${merchant.min}/notifications?${new URLSearchParams({ invoice })}`;
  const response = await fetch(receivedUrl);
  console.log(`   the merchant's side: GET ${receivedUrl} → ${response.status}`);
  if (!response.ok) return; // a merchant hosted elsewhere (COLLECT_MIN) is not the sandbox's to show
  const { notifications } = (await response.json()) as { notifications: ReceivedRecord[] };
  for (const post of notifications) {
    const mine = post.lines.find((entry) => entry.invoice === invoice);
    console.log(
      `     ${post.receivedAt}: POST /${merchant.min}/notify, ${post.lines.length} line${post.lines.length === 1 ? '' : 's'}` +
        ` (INVOICE=${invoice}:STATUS=${mine?.status}); CHECKSUM ${post.checksumValid ? 'verified' : 'NOT valid'}` +
        ` (HMAC-SHA1, its secret), SIGNATURE ${post.signatureValid ? 'verified' : 'NOT valid'} (RSA-SHA256,` +
        ` the gateway's key); answered ${post.httpStatus} ${JSON.stringify(post.reply.trim())}`,
    );
  }
}

/** The sandbox merchant `npm start` provisioned (hosted by the sandbox merchant), or COLLECT_MIN's. */
function demoMerchant(): CollectMerchant | undefined {
  if (process.env.COLLECT_MIN && process.env.COLLECT_SECRET) {
    console.log(`   using merchant ${process.env.COLLECT_MIN} (COLLECT_MIN, COLLECT_SECRET)`);
    return { min: process.env.COLLECT_MIN, secret: process.env.COLLECT_SECRET };
  }
  if (!parties) {
    console.log(
      `   Skipped: no ${path.join(dataDir, SANDBOX_PARTIES_FILE)} (written by \`npm start\` in sandbox`,
    );
    console.log('   mode), and no COLLECT_MIN + COLLECT_SECRET naming a merchant.');
    return undefined;
  }
  const { min, secret, notifyUrl } = parties.collect;
  show('merchant', { min, notifyUrl, secret: `(in ${SANDBOX_PARTIES_FILE})` });
  return { min, secret };
}

async function demoCollect() {
  say('Payment collection: the sandbox merchant (provisioned by npm start, hosted by the sandbox merchant)');
  const merchant = demoMerchant();
  if (!merchant) return;
  const collect = collectClientOf(merchant);

  say('Register an obligation payable at an office (office/reg_bill.cgi)');
  const billInvoice = `${Date.now()}`.slice(-9);
  const bill = collect.packet({
    INVOICE: billInvoice,
    AMOUNT: '22.80',
    EXP_TIME: expTimeIn(86_400_000),
    DESCR: 'Demo order',
    ENCODING: 'utf-8',
  });
  console.log(`   packet: ${packetText(bill)}`);
  const registered = linesOf(
    await collect.GET('/office/reg_bill.cgi', { params: { query: bill }, parseAs: 'text' }),
    'office/reg_bill.cgi',
  );
  const idn = registered.IDN ?? '';
  console.log(`   the customer pays with code ${idn} at an office or ATM`);
  console.log(`   workflow: ${workflowLink(`collect-${idn}`)}`);

  say('The customer pays at the office (demo office: office/pay_bill.cgi)');
  linesOf(
    await collect.GET('/office/pay_bill.cgi', {
      params: { query: { ACTION: 'PAY', IDN: idn } },
      parseAs: 'text',
    }),
    'office/pay_bill.cgi',
  );

  say('The merchant is notified PAID');
  await showNotification(merchant, billInvoice);
  console.log(`   workflow: ${workflowLink(`merchant-notifications-${merchant.min}`)}`);

  say('Order a cash payout to a named recipient (office/send.cgi)');
  const payoutInvoice = `${Date.now()}`.slice(-9);
  const payout = collect.packet({
    INVOICE: payoutInvoice,
    AMOUNT: '150.00',
    RCPT_NAME: 'Ivan Petrov',
    RCPT_ID: '8001011234',
    EXP_TIME: expTimeIn(3 * 86_400_000),
    ENCODING: 'utf-8',
  });
  console.log(`   packet: ${packetText(payout)}`);
  const ordered = linesOf(
    await collect.GET('/office/send.cgi', { params: { query: payout }, parseAs: 'text' }),
    'office/send.cgi',
  );
  const sysCode = ordered.SYS_CODE ?? '';
  console.log(`   the payout waits for its recipient until EXP_TIME: ${workflowLink(`payout-${sysCode}`)}`);

  say('The recipient collects the cash (demo office: office/pay_money_send.cgi)');
  linesOf(
    await collect.GET('/office/pay_money_send.cgi', {
      params: { query: { SYS_CODE: sysCode } },
      parseAs: 'text',
    }),
    'office/pay_money_send.cgi',
  );

  say('The merchant is notified PAID (STAN and BCODE 000000 for a cash payout)');
  await showNotification(merchant, payoutInvoice);

  const search = `PlatformService="collect" AND OwnerId="${merchant.min}"`;
  console.log(
    `\n   All workflows of this merchant: ${uiUrl}/namespaces/${namespace}/workflows?query=${encodeURIComponent(search)}`,
  );
}

/**
 * Approves the demo's sender ID as an operator would (POST /admin/messaging/sender-ids/{id}/approve with
 * the operator token `npm start` provisioned, or ADMIN_TOKEN); without one the demo sends from `DEMO`,
 * which `npm start` pre-approves for the sandbox account.
 */
async function approveSenderId(id: string, senderId: string): Promise<string> {
  if (!adminToken) {
    console.log(
      "   No operator token: the operator step is skipped; sending from the sandbox account's DEMO",
    );
    return 'DEMO';
  }
  const response = await fetch(`${apiUrl}/admin/messaging/sender-ids/${id}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'demo sender', note: 'approved by npm run demo' }),
  });
  console.log(`   POST /admin/messaging/sender-ids/${id}/approve (the operator) → ${response.status}`);
  if (response.status !== 200) throw new Error(`approving the sender ID failed: ${await response.text()}`);
  show('approved', await response.json());
  return senderId;
}

say(`Health of ${apiUrl}`);
const health = await fetch(`${apiUrl}/health`).catch(() => {
  console.error(
    `   Nothing answers at ${apiUrl}: start the platform with \`npm start\` (and the same DATA_DIR) first.`,
  );
  process.exit(2);
});
show('health', await health.json());
if (health.status !== 200) throw new Error('the platform is not ready; is `npm start` running?');

const receiver = await startReceiver();
console.log(`   a local webhook receiver listens at ${receiver.url}`);
try {
  say('Correct and validate a national-format number');
  show(
    'result',
    bodyOf(
      await messaging.POST('/numberCorrection', { body: { number: '0888 123 456', country: 'BG' } }),
      200,
      'number correction',
    ),
  );

  say('Register and confirm an alphanumeric sender ID; an operator approves it (decision 0028)');
  const registered = `DEMO${String(Date.now()).slice(-5)}`;
  const registration = bodyOf(
    await messaging.POST('/senderId', { body: { senderId: registered } }),
    202,
    'sender ID registration',
  );
  show('registered', registration);
  console.log(`   workflow: ${workflowLink(`sender-id-${registration.id}`)}`);
  show(
    'confirmed (waiting for an operator)',
    bodyOf(
      await messaging.POST('/senderId/confirm/{id}', { params: { path: { id: registration.id } } }),
      200,
      'sender ID confirmation',
    ),
  );
  const senderId = await approveSenderId(registration.id, registered);
  const sendThroughFailover = await configureCarrierFailover({
    apiUrl,
    adminToken,
    parties,
    messaging,
    say,
    show,
    workflowLink,
    until,
  });

  say('Send an SMS from the sender ID with a delivery-report URL');
  const sms = bodyOf(
    await messaging.POST('/sms', {
      body: { to: '+359888123456', from: senderId, message: 'Hello from the demo', dlrUrl: receiver.url },
    }),
    202,
    'send SMS',
  );
  show('accepted', sms);
  console.log(`   workflow: ${workflowLink(`sms-${sms.id}`)}`);
  const delivered = await until('the delivery receipt', async () => {
    const message = bodyOf(
      await messaging.GET('/sms/{id}', { params: { path: { id: sms.id } } }),
      200,
      'read SMS',
    );
    return ['accepted', 'scheduled', 'sending', 'submitted'].includes(message.status) ? undefined : message;
  });
  show('final status', delivered.status);

  say('Receive the signed delivery report and verify its signature');
  const report = await until('the delivery report', async () => receiver.requests[0]);
  show('report', JSON.parse(report.body));
  const endpoints = bodyOf(await messaging.GET('/webhooks/endpoints'), 200, 'webhook endpoints').items;
  const secret = endpoints.find((endpoint) => endpoint.url === receiver.url)?.secret ?? '';
  show(
    'signature valid',
    verifyWebhook(secret, report.headers as Record<string, string>, report.body, 300).valid,
  );
  await sendThroughFailover?.(senderId);

  say('Schedule an SMS 10 seconds ahead and list scheduled messages');
  const scheduled = new Date(Date.now() + 10_000).toISOString();
  const later = bodyOf(
    await messaging.POST('/sms', {
      body: { to: '+359888123457', from: senderId, message: 'Later', scheduled },
    }),
    202,
    'schedule SMS',
  );
  console.log(`   workflow: ${workflowLink(`sms-${later.id}`)}`);
  show(
    'scheduled',
    bodyOf(
      await messaging.GET('/sms', { params: { query: { scheduled: scheduled.slice(0, 10) } } }),
      200,
      'scheduled messages',
    ).items,
  );

  say('Send a chat-app message');
  const chat = bodyOf(
    await messaging.POST('/chatapp', {
      body: { to: '+359888123458', from: senderId, message: 'Hello on chat' },
    }),
    202,
    'chat-app message',
  );
  console.log(`   workflow: ${workflowLink(`sms-${chat.id}`)}`);

  say('Look up a number (HLR); the result is POSTed to the callback URL');
  const lookup = bodyOf(
    await messaging.POST('/hlr', { body: { number: '+359888123456', callBackUrl: receiver.url } }),
    202,
    'HLR lookup',
  );
  console.log(`   workflow: ${workflowLink(`hlr-${lookup.id}`)}`);
  const result = await until('the HLR result', async () =>
    receiver.requests.find((request) => request.body.includes('hlr.result')),
  );
  show('HLR result', JSON.parse(result.body));

  say('Reference data');
  const operators = await messaging.GET('/mccmnc/{country}', {
    params: { path: { country: 'BG' }, query: { Page: '1' } },
  });
  show('first operators of BG', bodyOf(operators, 200, 'operators').items.slice(0, 2));
  show(
    'prefixes of BG',
    bodyOf(
      await messaging.GET('/prefixes/{country}', { params: { path: { country: 'BG' } } }),
      200,
      'prefixes',
    ),
  );

  await demoCollect();
  await demoOpenBanking({ apiUrl, uiUrl, namespace, say, show, until });
  if (parties) await demoLending({ apiUrl, parties, say, show, workflowLink, until });
  else
    console.log(
      `\n   Lending skipped: no ${path.join(dataDir, SANDBOX_PARTIES_FILE)} (npm start in sandbox mode)`,
    );

  console.log(
    `\nDone. Browse every workflow in the Temporal Web UI: ${uiUrl}/namespaces/${namespace}/workflows`,
  );
  console.log(`The messaging reference: ${apiUrl}/messaging/docs`);
  console.log(`The payment-collection reference: ${apiUrl}/collect/docs`);
  console.log(`The lending reference: ${apiUrl}/lending/docs`);
} finally {
  await receiver.stop();
}
