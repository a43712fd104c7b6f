import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectOneTouchDevices, collectOneTouchPayments } from '../../db/schema/collect-one-touch.ts';
import { oneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expTimeIn, postForm, signedPacket } from './epay-client.ts';

/**
 * PLATFORM_MODE=production with no real acquirer configured: the card page, pre-authorisation and
 * one-touch refuse to run on the sandbox issuer (the sandbox test card would otherwise "approve" and
 * the merchant receive a correctly signed PAID for money never taken). Nothing is registered or paid.
 */
let production: TestPlatform;
let merchant: { min: string; secret: string };
let app: { appId: string; secret: string };

beforeAll(async () => {
  production = await startTestPlatform({
    env: {
      PLATFORM_MODE: 'production',
      PUBLIC_BASE_URL: 'https://gateway.example.test',
      COLLECT_SECRET_KEY: 'ab'.repeat(32),
      OPENBANKING_KEY_ENCRYPTION_KEY: 'cd'.repeat(32),
      WEBHOOK_SECRET_KEY: 'ef'.repeat(32),
    },
  });
  merchant = await production.createMerchant({ name: 'Production shop' });
  app = await production.createOneTouchApp({ name: 'Production app' });
});
afterAll(async () => {
  await production?.stop();
});

const obligationsOfMerchant = async () => {
  const [row] = await production.db
    .select({ n: count() })
    .from(collectObligations)
    .where(eq(collectObligations.merchantMin, merchant.min));
  return row?.n;
};

const packet = (fields: Record<string, string>) =>
  signedPacket({ MIN: merchant.min, ...fields, ENCODING: 'utf-8' }, merchant.secret);

describe('production mode without an acquirer', () => {
  it('the card page answers its HTML error page and registers nothing', async () => {
    const response = await fetch(`${production.collectUrl}/`, {
      method: 'POST',
      body: new URLSearchParams({
        PAGE: 'credit_paydirect',
        ...packet({ INVOICE: 'card-1', AMOUNT: '22.80', EXP_TIME: expTimeIn(86_400_000) }),
      }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain('<code id="error-code">ACQUIRER_NOT_CONFIGURED</code>');
    expect(page).not.toContain('name="number"');
    expect(await obligationsOfMerchant()).toBe(0);

    // A card form posted anyway (a page rendered before the switch, a forged post) decides nothing.
    const pay = await fetch(`${production.collectUrl}/card/pay`, {
      method: 'POST',
      body: new URLSearchParams({
        token: 'x'.repeat(43),
        action: 'pay',
        number: '4000000000000002',
        expiry: '12/39',
        cvv: '123',
      }),
    });
    expect(pay.status).toBe(503);
    expect(await pay.text()).toContain('ACQUIRER_NOT_CONFIGURED');
  });

  it('pre-authorisation (v3main) answers ERR=ACQUIRER_NOT_CONFIGURED and holds nothing', async () => {
    const register = await postForm(`${production.collectUrl}/v3main/`, {
      ...packet({ PHASE: 'REGISTER', INVOICE: 'hold-1', AMOUNT: '10.00', EXP_TIME: expTimeIn(86_400_000) }),
    });
    expect(register.status).toBe(503);
    expect(register.fields.ERR).toBe('ACQUIRER_NOT_CONFIGURED');
    expect(register.fields.IDN).toBeUndefined();
    const finalize = await postForm(`${production.collectUrl}/v3main/`, {
      ...packet({ PHASE: 'FINALIZE', IDN: '1234567890', AMOUNT: '10.00' }),
    });
    expect(finalize.status).toBe(503);
    expect(finalize.fields.ERR).toBe('ACQUIRER_NOT_CONFIGURED');
    expect(await obligationsOfMerchant()).toBe(0);
  });

  it('one-touch answers its JSON error: no device paired on the sandbox card, no payment made', async () => {
    const call = async (path: string, params: Record<string, string>) => {
      const response = await fetch(`${production.collectUrl}${path}?${new URLSearchParams(params)}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const code = await call('/xdev/api/api/code/get', {
      APPID: app.appId,
      DEVICEID: 'prod-device',
      KEY: '1',
    });
    expect(code.status).toBe(503);
    expect(code.body).toMatchObject({ status: 'ERR', err: 'ACQUIRER_NOT_CONFIGURED' });

    const params = {
      AMOUNT: '1000',
      APPID: app.appId,
      DEVICEID: 'prod-device',
      ID: 'prod-noreg-1',
      RCPT: '8897458022',
      RCPT_TYPE: 'KIN',
    };
    const paid = await call('/xdev/api/api/payment/noreg/send/status', {
      ...params,
      CHECKSUM: oneTouchChecksum(params, app.secret),
    });
    expect(paid.status).toBe(503);
    expect(paid.body).toMatchObject({ status: 'ERR', err: 'ACQUIRER_NOT_CONFIGURED' });
    expect(paid.body.payment).toBeUndefined();

    const [payments] = await production.db.select({ n: count() }).from(collectOneTouchPayments);
    const [devices] = await production.db.select({ n: count() }).from(collectOneTouchDevices);
    expect({ payments: payments?.n, devices: devices?.n }).toEqual({ payments: 0, devices: 0 });
  });
});
