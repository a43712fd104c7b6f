import { and, count, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardTokenOf, savedCardOfToken } from '../../credentials/collect/card-tokens.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { oneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { holdWithCard, openCardPage, submitCard } from './card-client.ts';
import { expTimeIn, newInvoice, signedPacket, type TextReply, textReply } from './epay-client.ts';

/**
 * The payment-collection access matrix (issue 13), derived from the gateway's OpenAPI document like
 * the open-banking one: every documented operation that takes ENCODED/CHECKSUM answers its
 * authentication error without a valid checksum (and registers nothing); another merchant's
 * obligation (its IDN, its INVOICE) is NOT_FOUND or simply absent, never its data; every one-touch
 * operation refuses a caller without a valid token, code, application or checksum. Only the packet
 * each operation needs is written by hand.
 */

let platform: TestPlatform;
let merchant: { min: string; secret: string };
let otherMerchant: { min: string; secret: string };
let app: { appId: string; secret: string };
let otherApp: { appId: string; secret: string };
/** Saved cards (decision 0045): A's to charge, A's to forget, B's. */
let cards: { charged: string; forgotten: string; ofB: string };

/** A card saved on the card page (a zero-amount verification); answers its CARD_TOKEN. */
async function saveCard(owner: { min: string; secret: string }): Promise<string> {
  const fields = { MIN: owner.min, INVOICE: newInvoice(), AMOUNT: '0', SAVECARD: '1' };
  const opened = await openCardPage(platform.collectUrl, 'credit_paydirect', fields, owner.secret);
  await submitCard(platform.collectUrl, opened.token ?? '', '4000000000000002');
  const [row] = await platform.db
    .select({ id: collectSavedCards.id, tokenSealed: collectSavedCards.tokenSealed })
    .from(collectSavedCards)
    .innerJoin(collectObligations, eq(collectObligations.idn, collectSavedCards.idn))
    .where(eq(collectObligations.invoice, fields.INVOICE));
  if (!row) throw new Error('the card was not saved');
  return cardTokenOf(collectSecretKey(platform.config), row);
}

beforeAll(async () => {
  platform = await startTestPlatform();
  merchant = await platform.createSandboxMerchant({ name: 'Merchant A' });
  otherMerchant = await platform.createSandboxMerchant({ name: 'Merchant B' });
  app = await platform.createOneTouchApp({ name: 'App A' });
  otherApp = await platform.createOneTouchApp({ name: 'App B' });
  cards = {
    charged: await saveCard(merchant),
    forgotten: await saveCard(merchant),
    ofB: await saveCard(otherMerchant),
  };
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: { example?: unknown };
}
interface DocumentedOperation {
  method: string;
  path: string;
  /** Query parameters and form fields by name. */
  fields: string[];
  parameters: Parameter[];
}

async function documentedOperations(): Promise<DocumentedOperation[]> {
  const document = (await (await fetch(`${platform.collectUrl}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Parameter[];
          requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
        }
      >
    >;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      const bodyFields = Object.values(operation.requestBody?.content ?? {}).flatMap((content) =>
        Object.keys(content.schema?.properties ?? {}),
      );
      return {
        method: method.toUpperCase(),
        path,
        parameters,
        fields: [...parameters.map((parameter) => parameter.name), ...bodyFields],
      };
    }),
  );
}

/** Operations without a merchant or application credential, and why. */
const OPEN_OPERATIONS: Record<string, string> = {
  'GET /office/pay_bill.cgi': 'the office side (demo only, 404 in production)',
  'GET /office/pay_money_send.cgi': 'the office side (demo only, 404 in production)',
  'GET /.well-known/notification-key.pem': 'the public key that verifies notifications',
  'POST /card/pay': 'the card form; its credential is the single-use page token (checked below)',
  'GET /card/return':
    'the 3-D Secure return; decides only what the acquirer answers for an authorisation a card page submitted',
};

const amount = '12.30';
/** The packet each ENCODED operation needs (valid but for what the test changes), and extra fields. */
const PACKETS: Record<
  string,
  (min: string) => { packet: Record<string, string>; extra?: Record<string, string> }
> = {
  'GET /office/reg_bill.cgi': (min) => ({
    packet: {
      MIN: min,
      INVOICE: newInvoice(),
      AMOUNT: amount,
      EXP_TIME: expTimeIn(3_600_000),
      DESCR: 'matrix',
    },
  }),
  'POST /v3main/': (min) => ({
    packet: { MIN: min, PHASE: 'REGISTER', INVOICE: newInvoice(), AMOUNT: amount },
  }),
  'GET /v3main': (min) => ({ packet: { MIN: min, IDN: '1234567890', EXP_TIME: expTimeIn(7_200_000) } }),
  'GET /send/send_vnbel.cgi': (min) => ({
    packet: {
      MIN: min,
      INVOICE: newInvoice(),
      AMOUNT: amount,
      IBAN: 'BG80BNBG96611020345678',
      NAME: 'Ivan Petrov',
    },
  }),
  'GET /office/reg_vnbel.cgi': (min) => ({
    packet: { MIN: min, INVOICE: newInvoice(), AMOUNT: amount, DESCR: 'matrix', NAME: 'Ivan Petrov' },
  }),
  'GET /office/send.cgi': (min) => ({
    packet: {
      MIN: min,
      INVOICE: newInvoice(),
      AMOUNT: amount,
      RCPT_NAME: 'Ivan Petrov',
      RCPT_ID: '8001010000',
    },
  }),
  'GET /send/send.cgi': (min) => ({
    packet: { MIN: min, INVOICE: newInvoice(), AMOUNT: amount, RCPT: '8897458022', RCPT_TYPE: 'KIN' },
  }),
  'POST /': (min) => ({
    packet: {
      MIN: min,
      INVOICE: newInvoice(),
      AMOUNT: amount,
      URL_OK: 'https://shop.example/ok',
      URL_CANCEL: 'https://shop.example/cancel',
    },
    extra: { PAGE: 'credit_paydirect' },
  }),
  'GET /notifications': (min) => ({ packet: { MIN: min, INVOICE: newInvoice() } }),
  'GET /merchant/balance': (min) => ({ packet: { MIN: min } }),
  'GET /card/charge.cgi': (min) => ({
    packet: { MIN: min, INVOICE: newInvoice(), AMOUNT: amount, CARD_TOKEN: cards.charged },
  }),
  'GET /card/forget.cgi': (min) => ({ packet: { MIN: min, CARD_TOKEN: cards.forgotten } }),
};

/** Operations that register nothing: a validly signed packet only reads (or forgets a saved card). */
const READING_OPERATIONS = [
  'GET /v3main',
  'GET /notifications',
  'GET /merchant/balance',
  'GET /card/forget.cgi',
];

/**
 * The cash desk (decision 0030) authenticates its operators: the desk API by a bearer session token,
 * the hosted page by its session cookie. Only logging in (and the page showing its log-in form, and
 * logging out of no session) takes no credential.
 */
const DESK_LOGIN_OPERATIONS: Record<string, string> = {
  'POST /desk/api/sessions': 'the operator logs in with its login and password',
  'POST /desk/login': 'the page’s log-in form',
  'GET /desk': 'the log-in form without a session (401 once an IDN is asked for: checked below)',
  'POST /desk/logout': 'ends the session it has, if any',
};
const isDeskPath = (path: string) => path === '/desk' || path.startsWith('/desk/');

/** Sends ENCODED/CHECKSUM (and extra fields) the way the operation documents: query or form. */
async function send(method: string, path: string, params: Record<string, string>): Promise<TextReply> {
  const url = `${platform.collectUrl}${path}`;
  const response =
    method === 'GET'
      ? await fetch(`${url}?${new URLSearchParams(params)}`)
      : await fetch(url, { method, body: new URLSearchParams(params), redirect: 'manual' });
  return textReply(response);
}

/** The error code of an answer: `ERR=` text, the card page's HTML, or JSON. */
const errorCode = (reply: TextReply) =>
  reply.fields.ERR ??
  /\b(BAD_CHECKSUM|UNKNOWN_MERCHANT|MISSING_FIELD|NOT_FOUND)\b/.exec(reply.body)?.[1] ??
  undefined;

const encodedOperations = async () =>
  (await documentedOperations()).filter(({ fields }) => fields.includes('ENCODED'));

const obligationCount = async (min: string) =>
  (
    await platform.db
      .select({ n: count() })
      .from(collectObligations)
      .where(eq(collectObligations.merchantMin, min))
  )[0]?.n ?? 0;

describe('collect access matrix: ENCODED/CHECKSUM operations', () => {
  it('every documented operation is either signed, one-touch or deliberately open', async () => {
    const operations = await documentedOperations();
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { method, path, fields } of operations) {
      const name = `${method} ${path}`;
      if (fields.includes('ENCODED'))
        expect(PACKETS[name], `${name}: add its packet to PACKETS`).toBeDefined();
      // The desk's operations are checked in 'collect access matrix: cash desk' below.
      else if (!path.startsWith('/xdev/') && !isDeskPath(path))
        expect(
          OPEN_OPERATIONS[name],
          `${name} takes no credential: say why in OPEN_OPERATIONS`,
        ).toBeDefined();
    }
  });

  it('answer their authentication error without a valid checksum, and register nothing', async () => {
    const operations = await encodedOperations();
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const before = await obligationCount(merchant.min);
    for (const { method, path } of operations) {
      const name = `${method} ${path}`;
      const { packet, extra = {} } = PACKETS[name]!(merchant.min);
      const valid = signedPacket(packet, merchant.secret);
      const attempts: [string, Record<string, string>, number, string][] = [
        ['forged CHECKSUM', { ...valid, CHECKSUM: 'a'.repeat(40) }, 401, 'BAD_CHECKSUM'],
        [
          'signed with another merchant’s secret',
          { ...valid, CHECKSUM: signedPacket(packet, otherMerchant.secret).CHECKSUM },
          401,
          'BAD_CHECKSUM',
        ],
        [
          'unknown MIN',
          signedPacket({ ...packet, MIN: 'D000000001' }, merchant.secret),
          401,
          'UNKNOWN_MERCHANT',
        ],
        ['no CHECKSUM', { ENCODED: valid.ENCODED }, 400, 'MISSING_FIELD'],
      ];
      for (const [label, params, status, code] of attempts) {
        const reply = await send(method, path, { ...extra, ...params });
        expect({ status: reply.status, code: errorCode(reply) }, `${name} (${label})`).toEqual({
          status,
          code,
        });
        expect(reply.body, `${name} (${label})`).not.toMatch(/\bIDN=/);
      }
      // The same packet, validly signed, is accepted: the checksum was the only fault.
      const accepted = await send(method, path, { ...extra, ...valid });
      if (name !== 'GET /v3main') expect(accepted.status, `${name} (valid)`).toBe(200);
      else expect(errorCode(accepted), `${name} (valid, unknown IDN)`).toBe('NOT_FOUND');
    }
    // Only the validly signed registrations count: REGISTER, card page and the five registering operations.
    const registering = operations.filter(
      ({ method, path }) => !READING_OPERATIONS.includes(`${method} ${path}`),
    ).length;
    expect(await obligationCount(merchant.min)).toBe(before + registering);
  });

  it('another merchant’s obligation is NOT_FOUND or absent, never its data', async () => {
    // Merchant B: a paid obligation (with a notification), an open one and a hold.
    const register = async (
      fields: Record<string, string>,
      path = '/office/reg_bill.cgi',
      method = 'GET',
    ) => {
      const reply = await send(
        method,
        path,
        signedPacket({ MIN: otherMerchant.min, ...fields }, otherMerchant.secret),
      );
      expect(reply.status, reply.body).toBe(200);
      return reply.fields.IDN!;
    };
    const paidInvoice = newInvoice();
    const paidIdn = await register({ INVOICE: paidInvoice, AMOUNT: amount, DESCR: 'B paid' });
    const pay = await send('GET', '/office/pay_bill.cgi', { ACTION: 'PAY', IDN: paidIdn });
    expect(pay.fields.STATUS).toBe('PAID');
    const openInvoice = newInvoice();
    const openIdn = await register({ INVOICE: openInvoice, AMOUNT: amount, DESCR: 'B open' });
    const holdPacket = { PHASE: 'REGISTER', INVOICE: newInvoice(), AMOUNT: amount };
    const holdIdn = await register(holdPacket, '/v3main/', 'POST');
    // The customer's card authorises B's hold (decision 0032): HELD.
    const cardHold = await holdWithCard(
      platform.collectUrl,
      { MIN: otherMerchant.min, ...holdPacket },
      otherMerchant.secret,
    );
    expect(cardHold.status, cardHold.html).toBe(200);
    const notificationsOfB = await eventually(
      async () => {
        const reply = await send(
          'GET',
          '/notifications',
          signedPacket({ MIN: otherMerchant.min, INVOICE: paidInvoice }, otherMerchant.secret),
        );
        const body = JSON.parse(reply.body) as { notifications: unknown[] };
        return body.notifications.length > 0 ? body : undefined;
      },
      15_000,
      'B’s notification',
    );
    expect(JSON.stringify(notificationsOfB)).toContain(paidIdn);
    const rowsOfB = async () =>
      (
        await platform.db
          .select({
            idn: collectObligations.idn,
            status: collectObligations.status,
            expiresAt: collectObligations.expiresAt,
          })
          .from(collectObligations)
          .where(inArray(collectObligations.idn, [paidIdn, openIdn, holdIdn]))
      ).sort((a, b) => a.idn.localeCompare(b.idn));
    const before = await rowsOfB();

    /** Merchant A's request naming B's obligation, for every ENCODED operation. */
    const probes: Record<
      string,
      { packet: Record<string, string>; extra?: Record<string, string>; code?: string; status?: number }[]
    > = {
      'GET /v3main': [{ packet: { IDN: openIdn, EXP_TIME: expTimeIn(7_200_000) }, code: 'NOT_FOUND' }],
      'POST /v3main/': [
        { packet: { PHASE: 'FINALIZE', IDN: holdIdn, AMOUNT: amount }, code: 'NOT_FOUND' },
        { packet: { PHASE: 'REVERSE', IDN: holdIdn }, code: 'NOT_FOUND' },
      ],
      // B's INVOICE, under A's MIN: A's own notifications (none), A's own new obligations.
      'GET /notifications': [{ packet: { INVOICE: paidInvoice } }],
      // A's own balance, never B's (B has been paid).
      'GET /merchant/balance': [{ packet: {} }],
      // B's saved card is answered like an unknown one: neither charged nor forgotten.
      'GET /card/charge.cgi': [
        { packet: { INVOICE: newInvoice(), CARD_TOKEN: cards.ofB }, code: 'BAD_FIELD', status: 400 },
      ],
      'GET /card/forget.cgi': [{ packet: { CARD_TOKEN: cards.ofB }, code: 'BAD_FIELD', status: 400 }],
    };
    const secrets = [paidIdn, openIdn, holdIdn, otherMerchant.min, 'B paid', 'B open'];
    for (const { method, path } of await encodedOperations()) {
      const name = `${method} ${path}`;
      const template = PACKETS[name]!(merchant.min);
      // An operation that registers: B's INVOICE (of an obligation of B's own) under A's MIN is A's own.
      let attempts = probes[name];
      if (!attempts) {
        const invoice = newInvoice();
        secrets.push(await register({ INVOICE: invoice, AMOUNT: amount, DESCR: 'B open' }));
        attempts = [{ packet: { INVOICE: invoice } }];
      }
      for (const probe of attempts) {
        const packet = { ...template.packet, ...probe.packet, MIN: merchant.min };
        const reply = await send(method, path, {
          ...template.extra,
          ...signedPacket(packet, merchant.secret),
        });
        if (probe.code)
          expect({ status: reply.status, code: errorCode(reply) }, name).toEqual({
            status: probe.status ?? 404,
            code: probe.code,
          });
        else expect(reply.status, `${name}: ${reply.body}`).toBe(200);
        // What the request itself named may be echoed (`no obligation <IDN>`); nothing else of B's.
        for (const secret of secrets.filter((value) => !Object.values(packet).includes(value)))
          expect(reply.body, `${name} shows B’s ${secret}`).not.toContain(secret);
      }
    }
    // Nothing of B's changed.
    expect(await rowsOfB()).toEqual(before);
    const [held] = await platform.db
      .select({ status: collectObligations.status })
      .from(collectObligations)
      .where(and(eq(collectObligations.idn, holdIdn), eq(collectObligations.merchantMin, otherMerchant.min)));
    expect(held?.status).toBe('HELD');
    // B's saved card is still B's, and still chargeable.
    const [cardOfB] = await platform.db
      .select()
      .from(collectSavedCards)
      .where(savedCardOfToken(collectSecretKey(platform.config), cards.ofB));
    expect(cardOfB).toMatchObject({ merchantMin: otherMerchant.min, deletedAt: null });
  });

  it('the card form refuses a page token it did not hand out', async () => {
    const reply = await send('POST', '/card/pay', { token: 'forged-page-token', action: 'pay' });
    expect(reply.status).toBe(404);
    expect(reply.body).toContain('PAGE_NOT_FOUND');
  });
});

describe('collect access matrix: cash desk', () => {
  it('every desk operation but logging in refuses a request without an operator’s session with 401', async () => {
    const operations = (await documentedOperations()).filter(({ path }) => isDeskPath(path));
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const guarded = operations.filter(({ method, path }) => !DESK_LOGIN_OPERATIONS[`${method} ${path}`]);
    expect(guarded.length).toBeGreaterThanOrEqual(6);
    const idn = '1234567890';
    const attempts: [string, Record<string, string>][] = [
      ['no credential', {}],
      ['forged bearer token', { authorization: 'Bearer dsk_forged-token' }],
      ['forged session cookie', { cookie: 'desk_session=dsk_forged-token' }],
    ];
    for (const { method, path } of guarded) {
      const isApi = path.startsWith('/desk/api/');
      const url = `${platform.collectUrl}${path.replace('{idn}', idn).replace('{receipt}', '000101-0000000001')}`;
      for (const [label, headers] of attempts) {
        const response = await fetch(url, {
          method,
          headers: {
            ...headers,
            'content-type': isApi ? 'application/json' : 'application/x-www-form-urlencoded',
            'idempotency-key': `matrix-${label.length}-${path.length}`,
          },
          body:
            method === 'GET' || method === 'DELETE'
              ? undefined
              : isApi
                ? JSON.stringify({ idn, recipientId: '8001010000', recipientName: 'Ivan Petrov' })
                : new URLSearchParams({ idn, csrf: 'x', requestId: 'matrix-request-1' }),
        });
        expect(response.status, `${method} ${path} (${label})`).toBe(401);
        const body = await response.text();
        if (isApi) expect(JSON.parse(body).error.code, `${method} ${path} (${label})`).toBe('unauthorized');
      }
    }
    // The page shows its log-in form to anyone, but looks nothing up without a session.
    const lookUp = await fetch(`${platform.collectUrl}/desk?idn=${idn}`);
    expect(lookUp.status).toBe(401);
    expect(await lookUp.text()).toMatch(/<form[^>]*login/i);
  });
});

describe('collect access matrix: one-touch operations', () => {
  type OneTouchAnswer = {
    status: number;
    body: { status: string; err?: string; code?: unknown; TOKEN?: unknown };
  };
  const call = async (path: string, params: Record<string, string>): Promise<OneTouchAnswer> => {
    const response = await fetch(`${platform.collectUrl}${path}?${new URLSearchParams(params)}`);
    return { status: response.status, body: (await response.json()) as OneTouchAnswer['body'] };
  };
  let keys = 0;
  const code = async (appId: string, deviceId: string) =>
    String(
      (await call('/xdev/api/api/code/get', { APPID: appId, DEVICEID: deviceId, KEY: `m${++keys}` })).body
        .code,
    );
  const pair = async (appId: string, deviceId: string) =>
    String(
      (
        await call('/xdev/api/api/token/get', {
          APPID: appId,
          DEVICEID: deviceId,
          CODE: await code(appId, deviceId),
        })
      ).body.TOKEN,
    );

  it('refuse a caller without a valid token, code, application or checksum', async () => {
    const device = 'matrix-device-1';
    const otherAppToken = await pair(otherApp.appId, device);
    const invalidated = await pair(app.appId, 'matrix-device-2');
    expect(
      (
        await call('/xdev/api/api/token/invalidate', {
          APPID: app.appId,
          DEVICEID: 'matrix-device-2',
          TOKEN: invalidated,
        })
      ).status,
    ).toBe(200);
    const otherDeviceToken = await pair(app.appId, 'matrix-device-3');
    const otherAppCode = await code(otherApp.appId, device);

    const operations = (await documentedOperations()).filter(({ path }) => path.startsWith('/xdev/'));
    expect(operations.length).toBeGreaterThanOrEqual(7);
    for (const { method, path, parameters } of operations) {
      expect(method, path).toBe('GET');
      // The documented example of every parameter: a request valid but for the credential.
      const base: Record<string, string> = Object.fromEntries(
        parameters
          .filter((parameter) => parameter.in === 'query' && parameter.required)
          .map((parameter) => [
            parameter.name,
            String(parameter.example ?? parameter.schema?.example ?? '1'),
          ]),
      );
      base.APPID = app.appId;
      base.DEVICEID = device;
      if ('ID' in base) base.ID = `matrix-${path.length}`;
      const names = parameters.map((parameter) => parameter.name);
      const attempts: [string, Record<string, string>, string][] = [
        ['unknown APPID', { ...base, APPID: '9'.repeat(40) }, 'INVALID_APP'],
      ];
      if (names.includes('TOKEN')) {
        attempts.push(
          ['forged TOKEN', { ...base, TOKEN: 'ot_forged-token-AAAAAAAAAAAAAAAAAAAAAA' }, 'INVALID_TOKEN'],
          ['another application’s TOKEN', { ...base, TOKEN: otherAppToken }, 'INVALID_TOKEN'],
          ['another device’s TOKEN', { ...base, TOKEN: otherDeviceToken }, 'INVALID_TOKEN'],
          [
            'invalidated TOKEN',
            { ...base, DEVICEID: 'matrix-device-2', TOKEN: invalidated },
            'INVALID_TOKEN',
          ],
        );
      } else if (names.includes('CODE')) {
        attempts.push(
          ['forged CODE', { ...base, CODE: 'forged-code' }, 'INVALID_CODE'],
          ['another application’s CODE', { ...base, CODE: otherAppCode }, 'INVALID_CODE'],
        );
      } else if (names.includes('CHECKSUM')) {
        const { CHECKSUM: _, ...unsigned } = base;
        attempts.push(
          ['forged CHECKSUM', { ...base, CHECKSUM: 'a'.repeat(40) }, 'INVALID_CHECKSUM'],
          [
            'signed with another application’s secret',
            { ...unsigned, CHECKSUM: oneTouchChecksum(unsigned, otherApp.secret) },
            'INVALID_CHECKSUM',
          ],
        );
      } else {
        // Pairing's first step: the application is the credential.
        expect(path, 'a one-touch operation without TOKEN, CODE or CHECKSUM').toBe('/xdev/api/api/code/get');
      }
      for (const [label, params, err] of attempts) {
        const answer = await call(path, params);
        expect(
          { status: answer.status, status_: answer.body.status, err: answer.body.err },
          `${path} (${label})`,
        ).toEqual({ status: err === 'INVALID_CODE' ? 400 : 401, status_: 'ERR', err });
      }
    }
  });
});
