import type { createMessagingClient } from '../clients/src/messaging.ts';
import { bodyOf } from './demo-client.ts';
import type { SandboxParties } from './sandbox-parties.ts';

/**
 * The carrier-failover step of `npm run demo` (decision 0079): as the operator, a carrier `demo-down`
 * whose address answers nothing (a closed loopback port), a carrier `demo-second` (the sandbox's second
 * SMSC) and a route for a number only the demo uses with carriers [demo-down, demo-second]; then an SMS
 * to that number, delivered through demo-second. PUT creates or changes, so a second run is the same.
 * The messaging API does not say which carrier took a message: with that route in effect, demo-second is
 * the only carrier that can deliver it.
 */

export interface FailoverDemoContext {
  apiUrl: string;
  adminToken: string | undefined;
  parties: Pick<SandboxParties, 'secondSmsc'> | undefined;
  messaging: ReturnType<typeof createMessagingClient>;
  say: (text: string) => void;
  show: (label: string, value: unknown) => void;
  workflowLink: (workflowId: string) => string;
  until: <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number) => Promise<T>;
}

/** The demo's own number (no sandbox receipt rule: it does not end in 0000 or 0001); the route's prefix. */
const FAILOVER_NUMBER = '+359899000777';
/** Port 1 on loopback: nothing listens there, a connection is refused at once. */
const DOWN_URL = 'smpp://127.0.0.1:1';
const PENDING = ['accepted', 'scheduled', 'sending', 'submitted'];

/**
 * Puts the carriers and the route (the operator's step); returns the step that sends through them, which
 * first waits until the worker has read the route (SMS_ROUTES_REFRESH after the PUT). Undefined, with a
 * line saying why, without an operator token or a second SMSC.
 */
export async function configureCarrierFailover(
  context: FailoverDemoContext,
): Promise<((from: string) => Promise<void>) | undefined> {
  const { apiUrl, adminToken, say, show } = context;
  const second = context.parties?.secondSmsc;
  say('An operator adds two SMS carriers and a route that fails over from the first to the second');
  if (!adminToken || !second) {
    console.log(`   Skipped: ${adminToken ? 'the sandbox runs no second SMSC' : 'no operator token'}`);
    return undefined;
  }
  const put = async (what: string, body: unknown) => {
    const response = await fetch(`${apiUrl}/admin/messaging/${what}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    console.log(`   PUT /admin/messaging/${what} (the operator) → ${response.status}`);
    if (response.status !== 200) throw new Error(`PUT /admin/messaging/${what}: ${await response.text()}`);
    return response.json();
  };
  const account = { systemId: second.systemId, password: second.password, enabled: true };
  show('carrier', await put('carriers/demo-down', { url: DOWN_URL, ...account }));
  show('carrier', await put('carriers/demo-second', { url: second.url, ...account }));
  const route = await put('routes/demo-failover', {
    prefix: FAILOVER_NUMBER.slice(1),
    carriers: ['demo-down', 'demo-second'],
    enabled: true,
  });
  show('route', route);
  const inEffectAt = Date.now() + second.routesRefreshMs + 1_000;
  return (from) => sendThroughRoute(context, from, inEffectAt);
}

async function sendThroughRoute(context: FailoverDemoContext, from: string, inEffectAt: number) {
  const { messaging, say, show, workflowLink, until } = context;
  say(
    `Send an SMS to ${FAILOVER_NUMBER} through that route: demo-down answers nothing, demo-second takes it`,
  );
  const wait = inEffectAt - Date.now();
  if (wait > 0) {
    console.log(
      `   (waiting ${Math.ceil(wait / 1000)} s for the worker to read the route: SMS_ROUTES_REFRESH)`,
    );
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const sms = bodyOf(
    await messaging.POST('/sms', {
      body: { to: FAILOVER_NUMBER, from, message: 'Hello through the second carrier' },
    }),
    202,
    'send SMS (failover)',
  );
  console.log(`   workflow: ${workflowLink(`sms-${sms.id}`)}`);
  const final = await until('the failover SMS delivery receipt', async () => {
    const message = bodyOf(
      await messaging.GET('/sms/{id}', { params: { path: { id: sms.id } } }),
      200,
      'read SMS',
    );
    return PENDING.includes(message.status) ? undefined : message;
  });
  show('final status', final.status);
  if (final.status !== 'delivered') throw new Error(`the failover SMS ended ${final.status}`);
  console.log('   delivered through carrier demo-second (demo-down answered nothing)');
}
