import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectOneTouchDevices, collectOneTouchPayments } from '../../db/schema/collect-one-touch.ts';
import { oneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import { ConfigError, loadConfig } from '../../platform/config.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { PRODUCTION_TEST_ENV, PRODUCTION_TEST_KEYS } from '../support/production-env.ts';
import { holdWithCard, openCardPage, realCardNumber, submitCard } from './card-client.ts';
import { expTimeIn, newInvoice, postForm, signedPacket } from './epay-client.ts';

/**
 * PLATFORM_MODE=production (decision 0032): it does not start unless every outside party that would
 * otherwise default to a sandbox one (card acquirer, SMPP carrier, chat-app and HLR providers) is named
 * explicitly, with credentials of its own, and (loopback here) allow-listed. Started with the sandbox acquirer named as its acquirer, cards go through it, but the
 * published test cards are refused before any authorisation; one-touch (sandbox card only) refuses.
 */
const PRODUCTION_KEYS = PRODUCTION_TEST_KEYS;

let production: TestPlatform;
let merchant: { min: string; secret: string };
let app: { appId: string; secret: string };

beforeAll(async () => {
  production = await startTestPlatform({ env: PRODUCTION_TEST_ENV });
  merchant = await production.createMerchant({ name: 'Production shop' });
  app = await production.createOneTouchApp({ name: 'Production app' });
});
afterEach(async () => {
  await expectLedgerBalanced(production.db);
});
afterAll(async () => {
  await production?.stop();
});

describe('production start-up', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error;
    }
    throw new Error('production started without its outside parties');
  };

  it('refuses to start with a sandbox connector, naming each setting that is missing', () => {
    const error = problemsOf({
      ...PRODUCTION_KEYS,
      COLLECT_SIGNING_KEY: production.env.COLLECT_SIGNING_KEY ?? '',
    });
    const named = error.problems.map((problem) => problem.variable);
    const parties = [
      'COLLECT_ACQUIRER_ID',
      'COLLECT_ACQUIRER_URL',
      'COLLECT_ACQUIRER_API_KEY',
      'COLLECT_COLLECTION_IBAN',
      'COLLECT_COLLECTION_BENEFICIARY',
      'SMPP_URL',
      'SMPP_SYSTEM_ID',
      'SMPP_PASSWORD',
      'CHATAPP_URL',
      'CHATAPP_API_KEY',
      'CHATAPP_PHONE_NUMBER_ID',
      'CHATAPP_APP_SECRET',
      'CHATAPP_VERIFY_TOKEN',
      'HLR_URL',
      'HLR_API_KEY',
      'HLR_API_SECRET',
      'LENDING_BUREAU_URL',
      'LENDING_BUREAU_API_KEY',
      'LENDING_COLLECT_URL',
      'LENDING_MESSAGING_URL',
      'LENDING_MESSAGING_TOKEN',
    ];
    expect(named.sort()).toEqual([...parties].sort());
    for (const variable of parties) {
      expect(error.message).toContain(`${variable}: required when PLATFORM_MODE=production`);
    }
  });

  it('an empty value counts as missing; named explicitly, the sandbox acquirer is accepted', () => {
    const explicit = { ...production.env, ...PRODUCTION_KEYS };
    expect(problemsOf({ ...explicit, COLLECT_ACQUIRER_URL: '' }).problems.map((p) => p.variable)).toEqual([
      'COLLECT_ACQUIRER_URL',
    ]);
    expect(loadConfig(explicit).COLLECT_ACQUIRER_URL).toBe(production.sandbox.acquirer.url);
  });

  it('the sandbox parties on loopback are accepted only through PRODUCTION_ALLOW_PRIVATE_PARTIES', () => {
    const explicit = { ...production.env, ...PRODUCTION_KEYS, PRODUCTION_ALLOW_PRIVATE_PARTIES: '' };
    const refused = problemsOf(explicit).problems;
    expect(refused.map((problem) => problem.variable).sort()).toEqual(
      [
        'CHATAPP_URL',
        'COLLECT_ACQUIRER_URL',
        'HLR_URL',
        'LENDING_BUREAU_URL',
        'LENDING_COLLECT_URL',
        'LENDING_MESSAGING_URL',
        'OPENBANKING_BANK_DIRECTORY_URL',
        'SMPP_URL',
      ].sort(),
    );
    for (const problem of refused) expect(problem.message).toContain('127.0.0.1 is a loopback address');
  });
});

describe('production mode with the sandbox acquirer configured', () => {
  const obligationOf = async (invoice: string) =>
    (await production.db.select().from(collectObligations).where(eq(collectObligations.invoice, invoice)))[0];
  const authorisations = () =>
    production.sandbox.acquirer.requests.filter((r) => r.path === '/v1/authorisations').length;

  it('the card page refuses the published test cards before any authorisation, and pays with a real card', async () => {
    const packet = {
      MIN: merchant.min,
      INVOICE: newInvoice(),
      AMOUNT: '22.80',
      EXP_TIME: expTimeIn(86_400_000),
      ENCODING: 'utf-8',
    };
    const opened = await openCardPage(production.collectUrl, 'credit_paydirect', packet, merchant.secret);
    expect(opened.status).toBe(200);
    expect(opened.html).not.toContain('Sandbox: no real card is charged');
    const before = authorisations();
    for (const testCard of ['4000000000000002', '5555555555554444', '4242424242424242', '4000000000003220']) {
      const refused = await submitCard(production.collectUrl, opened.token ?? '', testCard);
      expect(refused.status).toBe(422);
      expect(refused.html).toContain('Test cards are not accepted');
    }
    expect(authorisations()).toBe(before);
    expect((await obligationOf(packet.INVOICE))?.status).toBe('PENDING');

    const paid = await submitCard(production.collectUrl, opened.token ?? '', realCardNumber());
    expect(paid.status).toBe(200);
    expect(paid.html).toContain('Payment complete');
    expect(await obligationOf(packet.INVOICE)).toMatchObject({ status: 'PAID', paidAmountMinor: 2280 });
  });

  it('a pre-authorisation is held with a real card, finalized or reversed at the acquirer', async () => {
    const v3 = (fields: Record<string, string>) =>
      postForm(
        `${production.collectUrl}/v3main/`,
        signedPacket({ MIN: merchant.min, ...fields }, merchant.secret),
      );
    const hold = async (amount: string) => {
      const packet = {
        MIN: merchant.min,
        PHASE: 'REGISTER',
        INVOICE: newInvoice(),
        AMOUNT: amount,
        EXP_TIME: expTimeIn(86_400_000),
      };
      const registered = await postForm(
        `${production.collectUrl}/v3main/`,
        signedPacket(packet, merchant.secret),
      );
      expect(registered.fields.STATUS).toBe('PENDING');
      const testCard = await holdWithCard(production.collectUrl, packet, merchant.secret, '4000000000000002');
      expect(testCard.status).toBe(422);
      const held = await holdWithCard(production.collectUrl, packet, merchant.secret, realCardNumber('5412'));
      expect(held.html).toContain('Amount held');
      return registered.fields.IDN ?? '';
    };
    const finalized = await v3({ PHASE: 'FINALIZE', IDN: await hold('60.00'), AMOUNT: '45.00' });
    expect(finalized.fields).toMatchObject({ STATUS: 'PAID', AMOUNT: '45.00' });
    expect(finalized.fields.STAN).toMatch(/^\d{6}$/);
    const reversed = await v3({ PHASE: 'REVERSE', IDN: await hold('10.00') });
    expect(reversed.fields.STATUS).toBe('REVERSED');
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
