import { createHash, createHmac } from 'node:crypto';
import { count, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  collectOneTouchApps,
  collectOneTouchCodes,
  collectOneTouchDevices,
  collectOneTouchTokens,
} from '../../db/schema/collect-one-touch.ts';
import {
  ADMIN_TOKEN,
  app,
  CHECK,
  CODE_GET,
  call,
  expectError,
  INIT,
  INVALIDATE,
  NOREG,
  otherApp,
  pair,
  platform,
  SEND,
  TOKEN_GET,
  useOneTouchPlatform,
} from './one-touch-support.ts';

/** One-touch (ePay's mobile-app payments): pairing a device, its tokens, the operator's applications. Payments: one-touch-payments.test.ts. */

useOneTouchPlatform();

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
