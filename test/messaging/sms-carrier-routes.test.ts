import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carriersFor, destinationOf, type Route } from '../../domain/messaging/carrier-routes.ts';
import type { SandboxSmppCarrier } from '../../sandbox/messaging/smpp-carrier.ts';
import { type AnswerJson, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * SMS carriers and routes (decision 0079): carriers and routes managed through the admin API, the
 * worker's router picking a route by destination prefix, failing over to the next carrier of the route
 * when one is down or refuses "not now" (never a second submit_sm of what a carrier may have taken), and
 * each carrier's submit rate respected as the carrier sees it. The sandbox runs two SMSCs.
 */

const ADMIN_TOKEN = 'admin-token-for-messaging-carrier-routes-0123';
const FINAL = ['delivered', 'undeliverable', 'expired', 'rejected', 'failed', 'unknown'];

let platform: TestPlatform;
const api = messagingClient(() => platform);

async function admin(method: string, adminPath: string, body?: unknown) {
  const response = await fetch(`${platform.apiUrl}/admin${adminPath}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as AnswerJson };
}

async function send(to: string): Promise<string> {
  const { status, json } = await api('POST', '/sms', {
    body: { to, from: '+359888000111', message: `to ${to}` },
  });
  expect(status).toBe(202);
  return json.id as string;
}

async function finalMessage(id: string, timeoutMs = 45_000): Promise<AnswerJson> {
  return eventually(
    async () => {
      const { json } = await api('GET', `/sms/${id}`);
      return FINAL.includes(json.status as string) ? json : undefined;
    },
    timeoutMs,
    `message ${id} to reach a final status`,
  );
}

const submitsTo = (smsc: SandboxSmppCarrier, destination: string) =>
  smsc.submitted.filter((sms) => sms.destination === destination.replace(/^\+/, ''));

/** The routes take effect once the worker's router has read them (SMS_ROUTES_REFRESH). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      ADMIN_TOKEN,
      SMS_ROUTES_REFRESH: '200ms',
      SMS_CARRIER_BACKOFF: '3s',
      SMS_SUBMIT_TIMEOUT: '60s',
      SMS_RECEIPT_TIMEOUT: '60s',
    },
  });
  const { smpp, smpp2 } = platform.sandbox;
  for (const [name, url] of [
    ['alpha', smpp.url],
    ['beta', smpp2.url],
  ] as const) {
    const created = await admin('PUT', `/messaging/carriers/${name}`, {
      url,
      systemId: 'platform',
      password: 'sandbox',
      window: 8,
    });
    expect(created.status).toBe(200);
    expect(created.json).not.toHaveProperty('password');
  }
  expect(
    (
      await admin('PUT', '/messaging/carriers/gamma', {
        url: smpp2.url,
        systemId: 'platform',
        password: 'sandbox',
        submitRate: 5,
      })
    ).status,
  ).toBe(200);
  expect(
    (await admin('PUT', '/messaging/routes/bulgaria', { prefix: '359', carriers: ['alpha', 'beta'] })).status,
  ).toBe(200);
  expect((await admin('PUT', '/messaging/routes/uk', { prefix: '44', carriers: ['beta'] })).status).toBe(200);
  expect(
    (await admin('PUT', '/messaging/routes/germany', { prefix: '49', carriers: ['gamma'] })).status,
  ).toBe(200);
  await settle();
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

describe('route choice (domain)', () => {
  const route = (name: string, match: Partial<Route>, carriers: string[]): Route => ({
    name,
    prefix: null,
    mccMnc: null,
    priority: 100,
    enabled: true,
    carriers,
    ...match,
  });
  const known = new Map(['a', 'b', 'c', 'off'].map((name) => [name, { enabled: name !== 'off' }]));
  const routes = [
    route('bg', { prefix: '359' }, ['a', 'off', 'b']),
    route('bg-mobile', { prefix: '35988' }, ['c']),
    route('bg-mcc', { mccMnc: '284' }, ['b', 'default']),
    route('de', { prefix: '49', enabled: false }, ['c']),
  ];

  it('orders the carriers of every matching route, closest match first, each once, enabled only', () => {
    expect(carriersFor(routes, known, destinationOf('+359888123456'))).toEqual(['c', 'b', 'default', 'a']);
    expect(carriersFor(routes, known, destinationOf('+35929123456'))).toEqual(['b', 'default', 'a']);
  });

  it('puts a lower priority first, and sends what no route matches to `default`', () => {
    const urgent = [...routes, route('bg-first', { mccMnc: '284', priority: 1 }, ['b'])];
    expect(carriersFor(urgent, known, destinationOf('+359888123456'))[0]).toBe('b');
    expect(carriersFor(routes, known, destinationOf('+4915112345678'))).toEqual(['default']);
    expect(carriersFor([], known, destinationOf('+359888123456'))).toEqual(['default']);
  });
});

describe('carriers and routes', () => {
  it('chooses the route by the destination prefix', async () => {
    const bg = await send('+359888126001');
    const uk = await send('+447911123456');
    expect((await finalMessage(bg)).status).toBe('delivered');
    expect((await finalMessage(uk)).status).toBe('delivered');
    expect(submitsTo(platform.sandbox.smpp, '+359888126001')).toHaveLength(1);
    expect(submitsTo(platform.sandbox.smpp2, '+359888126001')).toHaveLength(0);
    expect(submitsTo(platform.sandbox.smpp2, '+447911123456')).toHaveLength(1);
    expect(submitsTo(platform.sandbox.smpp, '+447911123456')).toHaveLength(0);
  });

  it('lists carriers without their passwords and routes with their carriers', async () => {
    const carriers = await admin('GET', '/messaging/carriers');
    expect(carriers.status).toBe(200);
    const items = carriers.json.items as Array<Record<string, unknown>>;
    expect(items.map((item) => item.name)).toEqual(['alpha', 'beta', 'gamma']);
    for (const item of items) expect(item).not.toHaveProperty('password');
    const routes = await admin('GET', '/messaging/routes');
    expect((routes.json.items as Array<Record<string, unknown>>).map((item) => item.carriers)).toEqual([
      ['alpha', 'beta'],
      ['gamma'],
      ['beta'],
    ]);
  });

  it('refuses bad carriers and routes naming every field', async () => {
    const bad = await admin('PUT', '/messaging/carriers/Bad%20Name', {
      url: 'http://example.com',
      systemId: '',
      window: 0,
      submitRate: -1,
      longMessages: 'pigeon',
    });
    expect(bad.status).toBe(400);
    const fields = ((bad.json.error as { fields: Array<{ field: string }> }).fields ?? []).map(
      (f) => f.field,
    );
    expect(fields).toEqual(
      expect.arrayContaining(['name', 'url', 'systemId', 'window', 'submitRate', 'longMessages']),
    );
    const noPassword = await admin('PUT', '/messaging/carriers/delta', {
      url: 'smpp://127.0.0.1:1',
      systemId: 'x',
    });
    expect(noPassword.status).toBe(400);
    expect(noPassword.json.error).toMatchObject({ fields: [{ field: 'password' }] });
    const route = await admin('PUT', '/messaging/routes/nowhere', { prefix: '3x', carriers: ['nobody'] });
    expect(route.status).toBe(400);
    expect(
      ((route.json.error as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field),
    ).toEqual(expect.arrayContaining(['prefix', 'carriers.0']));
    const neither = await admin('PUT', '/messaging/routes/nothing', { carriers: ['alpha'] });
    expect(neither.status).toBe(400);
  });

  it('respects a carrier’s submit rate as the carrier sees it', async () => {
    const numbers = Array.from({ length: 10 }, (_, index) => `+4915112345${String(index).padStart(3, '0')}`);
    const ids = await Promise.all(numbers.map(send));
    for (const id of ids) expect((await finalMessage(id)).status).toBe('delivered');
    const times = numbers
      .flatMap((number) => submitsTo(platform.sandbox.smpp2, number))
      .map((sms) => sms.at.getTime())
      .sort((a, b) => a - b);
    expect(times).toHaveLength(10);
    // 5 a second: never more than 5 submit_sm within any second, 10 take at least 1.8 s.
    for (let i = 5; i < times.length; i += 1) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(950);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1_750);
  });

  it('fails over a throttling carrier to the next of the route, and comes back after the backoff', async () => {
    const { smpp, smpp2 } = platform.sandbox;
    smpp.throttle(1);
    const first = await send('+359888126101');
    expect((await finalMessage(first)).status).toBe('delivered');
    expect(submitsTo(smpp, '+359888126101')).toHaveLength(0); // refused (not taken): not recorded
    expect(submitsTo(smpp2, '+359888126101')).toHaveLength(1);
    // Backing off: the next one skips alpha at once.
    const second = await send('+359888126102');
    expect((await finalMessage(second)).status).toBe('delivered');
    expect(submitsTo(smpp2, '+359888126102')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const third = await send('+359888126103');
    expect((await finalMessage(third)).status).toBe('delivered');
    expect(submitsTo(smpp, '+359888126103')).toHaveLength(1);
  }, 60_000);

  it('delivers every message of a burst once when a carrier goes down mid-burst', async () => {
    const { smpp, smpp2 } = platform.sandbox;
    const numbers = Array.from(
      { length: 60 },
      (_, index) => `+35988813${String(index + 100).padStart(4, '0')}`,
    );
    const before = smpp.submitted.length;
    const sending = (async () => {
      const ids: string[] = [];
      for (const [index, number] of numbers.entries()) {
        ids.push(await send(number));
        if (index % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 150));
      }
      return ids;
    })();
    await eventually(async () => (smpp.submitted.length - before >= 10 ? true : undefined), 20_000);
    smpp.refuseBinds(true); // alpha is down: its sessions dropped, binds refused
    const ids = await sending;
    // Back after a while: a message in doubt on alpha (sent, unanswered) stays on alpha (decision 0084).
    setTimeout(() => smpp.refuseBinds(false), 4_000);
    const finals = await Promise.all(ids.map((id) => finalMessage(id, 55_000)));
    expect(finals.map((message) => message.status)).toEqual(ids.map(() => 'delivered'));
    const counts = numbers.map((number) => submitsTo(smpp, number).length + submitsTo(smpp2, number).length);
    expect(counts).toEqual(numbers.map(() => 1));
    const throughBeta = numbers.filter((number) => submitsTo(smpp2, number).length === 1);
    expect(throughBeta.length).toBeGreaterThan(20);
    expect(numbers.filter((number) => submitsTo(smpp, number).length === 1).length).toBeGreaterThanOrEqual(
      10,
    );
  }, 90_000);
});
