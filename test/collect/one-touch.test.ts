import { createHash, createHmac } from 'node:crypto';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  collectOneTouchApps,
  collectOneTouchCodes,
  collectOneTouchDevices,
  collectOneTouchPayments,
  collectOneTouchTokens,
} from '../../db/schema/collect-one-touch.ts';
import { oneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const ADMIN_TOKEN = 'admin-token-for-one-touch-tests-0123456789';
let platform: TestPlatform;
let app: { appId: string; secret: string };
let otherApp: { appId: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  app = await platform.createOneTouchApp({ name: 'Shop app' });
  otherApp = await platform.createOneTouchApp({ name: 'Other app' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

type Instrument = { ID: string; STATUS: string };
type Answer = Record<string, unknown> & {
  status: 'OK' | 'ERR';
  err?: string;
  field?: string;
  payment?: Record<string, unknown>;
};

/** GET a one-touch path; `params` may be a list of pairs to send a parameter twice. */
async function call(path: string, params: Record<string, string> | [string, string][]) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`${platform.collectUrl}${path}?${query}`);
  return { status: response.status, body: (await response.json()) as Answer };
}

const instrumentsOf = (answer: Answer) => (answer.payment?.PAYMENT_INSTRUMENTS ?? []) as Instrument[];

const CODE_GET = '/xdev/api/api/code/get';
const TOKEN_GET = '/xdev/api/api/token/get';
const INVALIDATE = '/xdev/api/api/token/invalidate';
const CHECK = '/xdev/api/payment/check';
const INIT = '/xdev/api/payment/init';
const SEND = '/xdev/api/payment/send/status';
const NOREG = '/xdev/api/api/payment/noreg/send/status';

let keyCounter = 0;
/** Pairs a device with an application the way a one-touch client does; resolves with its token. */
async function pair(deviceId: string, appId = app.appId) {
  const code = await call(CODE_GET, { APPID: appId, DEVICEID: deviceId, KEY: String(++keyCounter) });
  expect(code.status).toBe(200);
  const token = await call(TOKEN_GET, { APPID: appId, DEVICEID: deviceId, CODE: String(code.body.code) });
  expect(token.status).toBe(200);
  return String(token.body.TOKEN);
}

const expectError = (
  answer: { status: number; body: Answer },
  status: number,
  err: string,
  field?: string,
) => {
  expect({ status: answer.status, err: answer.body.err, field: answer.body.field }).toEqual({
    status,
    err,
    field,
  });
  expect(answer.body.status).toBe('ERR');
  expect(typeof answer.body.errm).toBe('string');
};

const countPayments = async (id?: string) => {
  const [row] = await platform.db
    .select({ n: count() })
    .from(collectOneTouchPayments)
    .where(id === undefined ? undefined : eq(collectOneTouchPayments.id, id));
  return row?.n;
};

describe('pairing', () => {
  it('registers the device, exchanges the code once for a token bound to app and device', async () => {
    const code = await call(CODE_GET, {
      APPID: app.appId,
      DEVICEID: 'device-pair-1',
      KEY: '48213',
      UTYPE: '2',
      DEVICE_NAME: "Maria's phone",
      BRAND: 'Google',
      OS: 'android',
      MODEL: 'Pixel 8',
      OS_VERSION: '15',
      PHONE: '+359888123456',
    });
    expect(code.status).toBe(200);
    expect(code.body).toEqual({ status: 'OK', code: expect.stringMatching(/^[0-9a-f]{32}$/) });

    // Another device cannot use this device's code.
    expectError(
      await call(TOKEN_GET, {
        APPID: app.appId,
        DEVICEID: 'device-pair-other',
        CODE: String(code.body.code),
      }),
      400,
      'INVALID_CODE',
      'CODE',
    );
    const token = await call(TOKEN_GET, {
      APPID: app.appId,
      DEVICEID: 'device-pair-1',
      CODE: String(code.body.code),
    });
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      status: 'OK',
      TOKEN: expect.stringMatching(/^ot_/),
      EXPIRES: expect.any(Number),
      KIN: expect.stringMatching(/^\d{10}$/),
      REALNAME: 'Sandbox User',
    });
    expect(Number(token.body.EXPIRES)).toBeGreaterThan(Date.now() / 1000 + 300 * 86_400);
    // Single use.
    expectError(
      await call(TOKEN_GET, { APPID: app.appId, DEVICEID: 'device-pair-1', CODE: String(code.body.code) }),
      400,
      'INVALID_CODE',
      'CODE',
    );
    // DEVICEID + KEY is unique.
    expectError(
      await call(CODE_GET, { APPID: app.appId, DEVICEID: 'device-pair-1', KEY: '48213' }),
      409,
      'KEY_ALREADY_USED',
      'KEY',
    );
    // Only hashes are stored.
    const stored = await platform.db
      .select({ hash: collectOneTouchTokens.tokenHash })
      .from(collectOneTouchTokens)
      .where(eq(collectOneTouchTokens.deviceId, 'device-pair-1'));
    expect(stored).toEqual([{ hash: createHash('sha256').update(String(token.body.TOKEN)).digest('hex') }]);
  });

  it('refuses an expired code', async () => {
    const code = await call(CODE_GET, { APPID: app.appId, DEVICEID: 'device-expired-code', KEY: '1' });
    // As if the code's lifetime (COLLECT_ONE_TOUCH_CODE_TTL) had passed.
    await platform.db
      .update(collectOneTouchCodes)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(collectOneTouchCodes.deviceId, 'device-expired-code'));
    expectError(
      await call(TOKEN_GET, {
        APPID: app.appId,
        DEVICEID: 'device-expired-code',
        CODE: String(code.body.code),
      }),
      400,
      'INVALID_CODE',
      'CODE',
    );
  });

  it('refuses missing, malformed, repeated parameters and unknown applications, registering nothing', async () => {
    expectError(await call(CODE_GET, { DEVICEID: 'd-bad', KEY: '1' }), 400, 'MISSING_PARAMETER', 'APPID');
    expectError(await call(CODE_GET, { APPID: app.appId, KEY: '1' }), 400, 'MISSING_PARAMETER', 'DEVICEID');
    expectError(
      await call(CODE_GET, { APPID: app.appId, DEVICEID: 'd-bad' }),
      400,
      'MISSING_PARAMETER',
      'KEY',
    );
    expectError(
      await call(CODE_GET, { APPID: app.appId, DEVICEID: 'd-bad', KEY: '1', UTYPE: '3' }),
      400,
      'INVALID_PARAMETER',
      'UTYPE',
    );
    expectError(
      await call(CODE_GET, { APPID: app.appId, DEVICEID: 'has space', KEY: '1' }),
      400,
      'INVALID_PARAMETER',
      'DEVICEID',
    );
    expectError(
      await call(CODE_GET, [
        ['APPID', app.appId],
        ['DEVICEID', 'd-bad'],
        ['KEY', '1'],
        ['KEY', '2'],
      ]),
      400,
      'DUPLICATE_PARAMETER',
      'KEY',
    );
    expectError(
      await call(CODE_GET, { APPID: '99999999999', DEVICEID: 'd-bad', KEY: '1' }),
      401,
      'INVALID_APP',
      'APPID',
    );
    expectError(
      await call(TOKEN_GET, { APPID: app.appId, DEVICEID: 'd-bad' }),
      400,
      'MISSING_PARAMETER',
      'CODE',
    );
    expectError(
      await call(TOKEN_GET, { APPID: app.appId, DEVICEID: 'd-bad', CODE: 'nope' }),
      400,
      'INVALID_CODE',
      'CODE',
    );
    const devices = await platform.db
      .select({ n: count() })
      .from(collectOneTouchDevices)
      .where(inArray(collectOneTouchDevices.deviceId, ['d-bad', 'has space']));
    expect(devices[0]?.n).toBe(0);
  });
});

describe('tokens', () => {
  it('are refused for another device or application, and after invalidation', async () => {
    const token = await pair('device-token-1');
    const params = { TYPE: 'send', EXP: String(Math.floor(Date.now() / 1000) + 600) };
    expect(
      (await call(INIT, { APPID: app.appId, DEVICEID: 'device-token-1', TOKEN: token, ...params })).status,
    ).toBe(200);

    await pair('device-token-2');
    expectError(
      await call(INIT, { APPID: app.appId, DEVICEID: 'device-token-2', TOKEN: token, ...params }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );
    expectError(
      await call(INIT, { APPID: otherApp.appId, DEVICEID: 'device-token-1', TOKEN: token, ...params }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );
    expectError(
      await call(INIT, { APPID: app.appId, DEVICEID: 'device-token-1', TOKEN: 'ot_forged', ...params }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );
    // Another device cannot invalidate it either.
    expectError(
      await call(INVALIDATE, { APPID: app.appId, DEVICEID: 'device-token-2', TOKEN: token }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );

    const invalidated = await call(INVALIDATE, {
      APPID: app.appId,
      DEVICEID: 'device-token-1',
      TOKEN: token,
    });
    expect(invalidated).toEqual({ status: 200, body: { status: 'OK' } });
    expectError(
      await call(INIT, { APPID: app.appId, DEVICEID: 'device-token-1', TOKEN: token, ...params }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );
    expectError(
      await call(INVALIDATE, { APPID: app.appId, DEVICEID: 'device-token-1', TOKEN: token }),
      401,
      'INVALID_TOKEN',
      'TOKEN',
    );
    expectError(
      await call(INVALIDATE, { APPID: app.appId, DEVICEID: 'device-token-1' }),
      400,
      'MISSING_PARAMETER',
      'TOKEN',
    );
  });
});

describe('registered payments', () => {
  const device = 'device-pay-1';
  let token: string;
  const payment = (id: string, extra: Record<string, string> = {}) => ({
    APPID: app.appId,
    DEVICEID: device,
    TOKEN: token,
    TYPE: 'send',
    ID: id,
    AMOUNT: '1250',
    RCPT: '8897458022',
    RCPT_TYPE: 'KIN',
    DESCRIPTION: 'Order 4711',
    REASON: 'Delivery',
    ...extra,
  });

  beforeAll(async () => {
    token = await pair(device);
  });

  it('check previews a payment and records nothing', async () => {
    const before = await countPayments();
    const checked = await call(CHECK, payment('order-check-1'));
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({
      status: 'OK',
      payment: {
        ID: 'order-check-1',
        AMOUNT: 1250,
        PAYMENT_INSTRUMENTS: [
          { ID: expect.stringMatching(/^pin_/), NAME: 'Sandbox card', TAX: 0, TOTAL: 1250, STATUS: 'OK' },
        ],
        DATA: { RCPT_TYPE: 'KIN', RCPT: '8897458022' },
      },
    });
    const over = await call(CHECK, payment('order-check-2', { AMOUNT: '100001' }));
    expect(instrumentsOf(over.body)[0]?.STATUS).toBe('DECLINED');
    expect(await countPayments()).toBe(before);
  });

  it('check and send refuse bad inputs naming the parameter', async () => {
    const pins = instrumentsOf((await call(CHECK, payment('x'))).body)[0]?.ID;
    expect(pins).toBeDefined();
    const before = await countPayments();
    for (const path of [CHECK, SEND]) {
      expectError(await call(path, payment('bad-1', { TYPE: 'receive' })), 400, 'INVALID_PARAMETER', 'TYPE');
      expectError(
        await call(path, payment('bad-1', { AMOUNT: '12.50' })),
        400,
        'INVALID_PARAMETER',
        'AMOUNT',
      );
      expectError(await call(path, payment('bad-1', { AMOUNT: '0' })), 400, 'INVALID_PARAMETER', 'AMOUNT');
      expectError(
        await call(path, payment('bad-1', { RCPT_TYPE: 'IBAN' })),
        400,
        'INVALID_PARAMETER',
        'RCPT_TYPE',
      );
      expectError(await call(path, payment('bad-1', { RCPT: 'abc' })), 400, 'INVALID_PARAMETER', 'RCPT');
      expectError(
        await call(path, payment('bad-1', { RCPT_TYPE: 'GSM', RCPT: '12' })),
        400,
        'INVALID_PARAMETER',
        'RCPT',
      );
      expectError(
        await call(path, payment('bad-1', { RCPT_TYPE: 'EMAIL', RCPT: 'not-an-address' })),
        400,
        'INVALID_PARAMETER',
        'RCPT',
      );
      expectError(
        await call(path, payment('bad-1', { PINS: 'pin_other' })),
        400,
        'INVALID_PARAMETER',
        'PINS',
      );
      expectError(await call(path, payment('bad-1', { SHOW: 'KIN,IBAN' })), 400, 'INVALID_PARAMETER', 'SHOW');
      const { ID: _id, ...withoutId } = payment('bad-1');
      expectError(await call(path, withoutId), 400, 'MISSING_PARAMETER', 'ID');
      expectError(await call(path, payment('bad-1', { TOKEN: 'ot_forged' })), 401, 'INVALID_TOKEN', 'TOKEN');
    }
    // An instrument of the device itself is accepted.
    expect((await call(CHECK, payment('ok-pins', { PINS: String(pins) }))).status).toBe(200);
    expect(await countPayments()).toBe(before);
  });

  it('send/status pays once and then reports the same payment', async () => {
    const first = await call(SEND, payment('order-1001', { SHOW: 'KIN,NAME' }));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      status: 'OK',
      payment: {
        ID: 'order-1001',
        AMOUNT: 1250,
        TAX: 0,
        TOTAL: 1250,
        RCPT: '8897458022',
        RCPT_TYPE: 'KIN',
        DESCRIPTION: 'Order 4711',
        REASON: 'Delivery',
        STATE: 4,
        'STATE.TEXT': 'Payment Complete',
        PINS: expect.stringMatching(/^pin_/),
        SHOW: 'KIN,NAME',
        NO: expect.stringMatching(/^2\d{15}$/),
      },
    });
    const before = await countPayments();
    const again = await call(SEND, payment('order-1001', { SHOW: 'KIN,NAME' }));
    expect(again).toEqual(first);
    expect(await countPayments()).toBe(before);

    // The same ID with other parameters, or from another device of the application, is refused.
    expectError(
      await call(SEND, payment('order-1001', { AMOUNT: '999', SHOW: 'KIN,NAME' })),
      409,
      'PAYMENT_ID_CONFLICT',
      'ID',
    );
    const otherToken = await pair('device-pay-2');
    expectError(
      await call(SEND, {
        ...payment('order-1001', { SHOW: 'KIN,NAME' }),
        DEVICEID: 'device-pay-2',
        TOKEN: otherToken,
      }),
      409,
      'PAYMENT_ID_CONFLICT',
      'ID',
    );
    // check of an ID already paid is refused too.
    expectError(await call(CHECK, payment('order-1001')), 409, 'PAYMENT_ID_CONFLICT', 'ID');
  });

  it('concurrent sends with one ID pay once', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(SEND, payment('order-race'))));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.payment?.NO)).size).toBe(1);
    expect(await countPayments('order-race')).toBe(1);
  });

  it('declines an amount over the sandbox card limit, and says so again on repeat', async () => {
    const declined = await call(SEND, payment('order-big', { AMOUNT: '100001' }));
    expectError(declined, 402, 'PAYMENT_DECLINED');
    expect(declined.body.payment).toMatchObject({
      ID: 'order-big',
      AMOUNT: 100001,
      STATE: 5,
      'STATE.TEXT': 'Declined',
      NO: '',
    });
    const again = await call(SEND, payment('order-big', { AMOUNT: '100001' }));
    expect(again).toEqual(declined);
    // The limit itself is paid.
    expect((await call(SEND, payment('order-limit', { AMOUNT: '100000' }))).status).toBe(200);
  });

  it('init reserves an ID for this device until EXP', async () => {
    const init = await call(INIT, { APPID: app.appId, DEVICEID: device, TOKEN: token, TYPE: 'send' });
    expect(init.status).toBe(200);
    const reserved = init.body.payment as { ID: string; EXP: number };
    expect(reserved.ID).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reserved.EXP).toBeGreaterThan(Date.now() / 1000 + 3000);

    expect((await call(CHECK, payment(reserved.ID))).status).toBe(200);
    const otherToken = await pair('device-pay-3');
    expectError(
      await call(SEND, { ...payment(reserved.ID), DEVICEID: 'device-pay-3', TOKEN: otherToken }),
      409,
      'PAYMENT_ID_CONFLICT',
      'ID',
    );
    const sent = await call(SEND, payment(reserved.ID));
    expect(sent.status).toBe(200);
    expect(sent.body.payment).toMatchObject({ ID: reserved.ID, STATE: 4 });

    const exp = String(Math.floor(Date.now() / 1000) + 120);
    const short = await call(INIT, {
      APPID: app.appId,
      DEVICEID: device,
      TOKEN: token,
      TYPE: 'send',
      EXP: exp,
    });
    expect((short.body.payment as { EXP: number }).EXP).toBe(Number(exp));
    const shortId = (short.body.payment as { ID: string }).ID;
    await platform.db
      .update(collectOneTouchPayments)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(collectOneTouchPayments.appId, app.appId), eq(collectOneTouchPayments.id, shortId)));
    expectError(await call(SEND, payment(shortId)), 409, 'PAYMENT_ID_EXPIRED', 'ID');
    expectError(await call(CHECK, payment(shortId)), 409, 'PAYMENT_ID_EXPIRED', 'ID');
  });

  it('init refuses bad inputs', async () => {
    const base = { APPID: app.appId, DEVICEID: device, TOKEN: token, TYPE: 'send' };
    expectError(await call(INIT, { ...base, EXP: '1000' }), 400, 'INVALID_PARAMETER', 'EXP');
    expectError(await call(INIT, { ...base, EXP: 'tomorrow' }), 400, 'INVALID_PARAMETER', 'EXP');
    expectError(
      await call(INIT, { ...base, EXP: String(Math.floor(Date.now() / 1000) + 400 * 86_400) }),
      400,
      'INVALID_PARAMETER',
      'EXP',
    );
    expectError(await call(INIT, { ...base, TYPE: 'other' }), 400, 'INVALID_PARAMETER', 'TYPE');
    const { TYPE: _type, ...withoutType } = base;
    expectError(await call(INIT, withoutType), 400, 'MISSING_PARAMETER', 'TYPE');
    expectError(await call(INIT, { ...base, APPID: '12345678901' }), 401, 'INVALID_APP', 'APPID');
  });
});

describe('payments without registration', () => {
  /** The checksum, computed here independently of the gateway's code. */
  const checksumOf = (params: Record<string, string>, secret: string) =>
    createHmac('sha1', secret)
      .update(
        Object.keys(params)
          .sort()
          .map((name) => `${name} ${params[name]}\n`)
          .join(''),
      )
      .digest('hex');

  const noreg = (id: string, extra: Record<string, string> = {}) => ({
    AMOUNT: '1000',
    APPID: app.appId,
    DESCRIPTION: 'some descr',
    DEVICEID: '1231234',
    ID: id,
    RCPT: '8897458022',
    RCPT_TYPE: 'KIN',
    REASON: 'reason',
    SAVECARD: '1',
    ...extra,
  });
  const signed = (params: Record<string, string>, secret = app.secret) => ({
    ...params,
    CHECKSUM: checksumOf(params, secret),
  });

  it('matches a known vector', () => {
    const params = { AMOUNT: '10', APPID: '2143960160650364377823089976443473298565', ID: '124345678' };
    const text = 'AMOUNT 10\nAPPID 2143960160650364377823089976443473298565\nID 124345678\n';
    const expected = createHmac('sha1', 'secret-key').update(text).digest('hex');
    expect(oneTouchChecksum(params, 'secret-key')).toBe(expected);
    expect(oneTouchChecksum({ ...params, CHECKSUM: 'ignored' }, 'secret-key')).toBe(expected);
  });

  it('pays with a valid checksum, and a replay reports the same payment', async () => {
    const request = signed(noreg('noreg-1'));
    const paid = await call(NOREG, request);
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({
      status: 'OK',
      payment: expect.objectContaining({
        ID: 'noreg-1',
        AMOUNT: 1000,
        STATE: 4,
        'STATE.TEXT': 'Payment Complete',
        DESCRIPTION: 'some descr',
        NO: expect.stringMatching(/^2\d{15}$/),
      }),
      savecard: 1,
    });
    const before = await countPayments();
    expect(await call(NOREG, request)).toEqual(paid);
    expect(await countPayments()).toBe(before);
    // Upper-case hex is the same digest.
    expect((await call(NOREG, { ...request, CHECKSUM: request.CHECKSUM.toUpperCase() })).status).toBe(200);
  });

  it('signs every parameter sent, also ones the gateway does not use', async () => {
    const paid = await call(NOREG, signed(noreg('noreg-extra', { LANG: 'en' })));
    expect(paid.status).toBe(200);
    // Dropping the extra parameter breaks the checksum.
    const { LANG: _lang, ...rest }: Record<string, string> = signed(noreg('noreg-extra-2', { LANG: 'en' }));
    expectError(await call(NOREG, rest), 401, 'INVALID_CHECKSUM', 'CHECKSUM');
  });

  it('refuses a wrong, tampered or foreign checksum, recording nothing', async () => {
    const before = await countPayments();
    const request = signed(noreg('noreg-bad'));
    expectError(await call(NOREG, { ...request, AMOUNT: '999' }), 401, 'INVALID_CHECKSUM', 'CHECKSUM');
    expectError(
      await call(NOREG, signed(noreg('noreg-bad'), otherApp.secret)),
      401,
      'INVALID_CHECKSUM',
      'CHECKSUM',
    );
    expectError(
      await call(NOREG, { ...request, CHECKSUM: '0'.repeat(40) }),
      401,
      'INVALID_CHECKSUM',
      'CHECKSUM',
    );
    expectError(await call(NOREG, { ...request, CHECKSUM: 'abc' }), 400, 'INVALID_PARAMETER', 'CHECKSUM');
    expectError(await call(NOREG, noreg('noreg-bad')), 400, 'MISSING_PARAMETER', 'CHECKSUM');
    expectError(
      await call(NOREG, signed(noreg('noreg-bad', { APPID: '12345678901' }))),
      401,
      'INVALID_APP',
      'APPID',
    );
    expectError(
      await call(NOREG, signed(noreg('noreg-bad', { AMOUNT: '-5' }))),
      400,
      'INVALID_PARAMETER',
      'AMOUNT',
    );
    expectError(
      await call(NOREG, signed(noreg('noreg-bad', { SAVECARD: '2' }))),
      400,
      'INVALID_PARAMETER',
      'SAVECARD',
    );
    expectError(
      await call(NOREG, signed(noreg('noreg-bad', { RCPT_TYPE: 'GSM', RCPT: 'x' }))),
      400,
      'INVALID_PARAMETER',
      'RCPT',
    );
    expect(await countPayments()).toBe(before);
  });

  it('declines over the limit, and refuses the same ID with other parameters', async () => {
    const declined = await call(NOREG, signed(noreg('noreg-big', { AMOUNT: '250000' })));
    expectError(declined, 402, 'PAYMENT_DECLINED');
    expect(declined.body).toMatchObject({ savecard: 1, payment: { ID: 'noreg-big', STATE: 5 } });
    expect((await call(NOREG, signed(noreg('noreg-2')))).status).toBe(200);
    expectError(
      await call(NOREG, signed(noreg('noreg-2', { AMOUNT: '1001' }))),
      409,
      'PAYMENT_ID_CONFLICT',
      'ID',
    );
  });
});

describe('admin', () => {
  const admin = (body: unknown, token = ADMIN_TOKEN) =>
    fetch(`${platform.apiUrl}/admin/collect/one-touch/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  it('creates an application whose secret signs no-registration payments', async () => {
    const created = await admin({ name: 'Admin app', appId: 'admin-app-0001' });
    expect(created.status).toBe(201);
    const issued = (await created.json()) as { appId: string; name: string; secret: string };
    expect(issued).toEqual({ appId: 'admin-app-0001', name: 'Admin app', secret: expect.any(String) });
    const [stored] = await platform.db
      .select({ ciphertext: collectOneTouchApps.secretCiphertext })
      .from(collectOneTouchApps)
      .where(eq(collectOneTouchApps.id, 'admin-app-0001'));
    expect(stored?.ciphertext).toMatch(/^v1\./);
    expect(stored?.ciphertext).not.toContain(issued.secret);

    const params = {
      APPID: issued.appId,
      DEVICEID: 'd1',
      ID: 'a1',
      AMOUNT: '500',
      RCPT: '123',
      RCPT_TYPE: 'KIN',
    };
    const paid = await call(NOREG, {
      ...params,
      CHECKSUM: createHmac('sha1', issued.secret)
        .update(
          Object.keys(params)
            .sort()
            .map((name) => `${name} ${params[name as keyof typeof params]}\n`)
            .join(''),
        )
        .digest('hex'),
    });
    expect(paid.status).toBe(200);

    const generated = (await (await admin({ name: 'Generated' })).json()) as { appId: string };
    expect(generated.appId).toMatch(/^\d{40}$/);
  });

  it('refuses a taken APPID, a bad body and a wrong admin token', async () => {
    const taken = await admin({ name: 'Again', appId: 'admin-app-0001' });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { code: string } }).error.code).toBe('one_touch_app_exists');
    const bad = await admin({ name: '' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { fields: { field: string }[] } }).error.fields[0]?.field).toBe(
      'name',
    );
    expect((await admin({ name: 'x' }, 'wrong-admin-token-0123456789012345678')).status).toBe(401);
  });
});

describe('reference', () => {
  it('documents every one-touch operation and the card page in the OpenAPI document', async () => {
    const response = await fetch(`${platform.collectUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const paths = Object.keys(((await response.json()) as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(
      expect.arrayContaining([CODE_GET, TOKEN_GET, INVALIDATE, CHECK, INIT, SEND, NOREG, '/', '/card/pay']),
    );
  });
});
