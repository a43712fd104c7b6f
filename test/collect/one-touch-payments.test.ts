import { createHmac } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectOneTouchPayments } from '../../db/schema/collect-one-touch.ts';
import { oneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import {
  app,
  CHECK,
  call,
  countPayments,
  expectError,
  INIT,
  instrumentsOf,
  NOREG,
  otherApp,
  pair,
  platform,
  SEND,
  useOneTouchPlatform,
} from './one-touch-support.ts';

/** One-touch payments: with a paired device's token, and without registration (signed by the application's secret). */

useOneTouchPlatform();

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
