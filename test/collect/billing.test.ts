import { createHmac } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import { collectBillingAttempts, collectBillingPayments } from '../../db/schema/collect-notifications.ts';
import { billingWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/** Billing retry delays of this file (after each failed /pay/confirm). */
const SCHEDULE_MS = [200, 200, 200];

describe('billing callbacks (/pay/init, /pay/confirm)', () => {
  let platform: TestPlatform;
  let nextPrefix = 900;

  beforeAll(async () => {
    platform = await startTestPlatform({
      env: {
        COLLECT_BILLING_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
        COLLECT_BILLING_CHECK_TIMEOUT: '2s',
      },
    });
  });
  afterEach(async () => {
    await expectLedgerBalanced(platform.db);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** A merchant whose billing system (at the sandbox merchant) owns IDNs starting with its prefix. */
  async function billingMerchant() {
    const prefix = String(nextPrefix++);
    const merchant = await platform.createSandboxMerchant({ billingIdnPrefix: prefix });
    // The sandbox seeds 10-digit IDNs: <prefix>000…1 owes 25.00, …2 owes 49.99, …3 nothing.
    return {
      ...merchant,
      prefix,
      idn: (n: number) => `${prefix}${String(n).padStart(10 - prefix.length, '0')}`,
    };
  }

  /** The office pays (or checks) an IDN through the demo endpoint; answers are KEY=VALUE lines. */
  async function payBill(action: string, idn: string) {
    const response = await fetch(
      `${platform.collectUrl}/office/pay_bill.cgi?${new URLSearchParams({ ACTION: action, IDN: idn })}`,
    );
    const text = await response.text();
    const fields = Object.fromEntries(
      text
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { status: response.status, fields };
  }

  const payment = (tid: string) =>
    platform.db.select().from(collectBillingPayments).where(eq(collectBillingPayments.tid, tid));

  /** Waits for the billing workflow to end and answers the payment's read model and its calls. */
  async function finished(idn: string, tid: string) {
    await platform.client.workflow.getHandle(billingWorkflowId(idn, tid)).result();
    const [row] = await payment(tid);
    const attempts = await platform.db
      .select()
      .from(collectBillingAttempts)
      .where(eq(collectBillingAttempts.tid, tid))
      .orderBy(asc(collectBillingAttempts.id));
    return {
      row: row!,
      attempts: attempts.map((attempt) => `${attempt.phase}:${attempt.code ?? attempt.httpStatus}`),
    };
  }

  const callsOf = (min: string, phase?: 'init' | 'confirm') =>
    platform.sandbox.merchant.billingCalls.filter(
      (call) => call.min === min && (!phase || call.phase === phase),
    );

  const checksumOf = (secret: string, params: Record<string, string>) =>
    createHmac('sha1', secret)
      .update(
        Object.keys(params)
          .filter((name) => name !== 'CHECKSUM')
          .sort()
          .map((name) => `${name}${params[name]}\n`)
          .join(''),
      )
      .digest('hex');

  it('00: checks with /pay/init, takes the money and confirms with /pay/confirm', async () => {
    const merchant = await billingMerchant();
    const paid = await payBill('PAY', merchant.idn(1));
    expect(paid.status).toBe(200);
    expect(paid.fields).toMatchObject({
      STATUS: 'PAID',
      IDN: merchant.idn(1),
      MERCHANTID: merchant.min,
      AMOUNT: '25.00',
      SHORTDESC: 'Electricity, May',
      INVOICES: '5001',
    });
    const tid = paid.fields.TID as string;
    expect(tid).toMatch(/^\d{26}$/);

    const { row, attempts } = await finished(merchant.idn(1), tid);
    expect(row).toMatchObject({ status: 'confirmed', checkCode: '00', confirmCode: '00', amountMinor: 2500 });
    expect(attempts).toEqual(['init:00', 'confirm:00']);
    expect(platform.sandbox.merchant.customer(merchant.min, merchant.idn(1))?.paid).toBe(true);
    // The money the office took is in the ledger, against the (demo) desk and its receipt.
    const [posted] = await platform.db
      .select({ detail: collectLedgerTransactions.detail })
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.key, `billing:${tid}`));
    expect(posted?.detail).toMatchObject({
      source: { channel: 'cash_desk', officeId: '000001', receipt: expect.stringMatching(/^000001-/) },
    });

    const [init] = callsOf(merchant.min, 'init');
    const [confirm] = callsOf(merchant.min, 'confirm');
    expect(init!.params).toMatchObject({
      IDN: merchant.idn(1),
      MERCHANTID: merchant.min,
      TYPE: 'BILLING',
      TID: tid,
    });
    expect(confirm!.params).toMatchObject({
      IDN: merchant.idn(1),
      MERCHANTID: merchant.min,
      TID: tid,
      DATE: tid.slice(0, 14),
      TOTAL: '2500',
      TYPE: 'BILLING',
      INVOICES: '5001',
    });
    // The CHECKSUM, recomputed here with Node's crypto from the documented rule.
    for (const call of [init!, confirm!]) {
      expect(call.checksumValid).toBe(true);
      expect(call.params.CHECKSUM).toBe(checksumOf(merchant.secret, call.params));
    }
  });

  it('ACTION=CHECK only asks what is due: no payment, no confirmation', async () => {
    const merchant = await billingMerchant();
    const checked = await payBill('CHECK', merchant.idn(2));
    expect(checked.status).toBe(200);
    expect(checked.fields).toMatchObject({ STATUS: 'DUE', AMOUNT: '49.99', INVOICES: '5002,5003' });

    const { row, attempts } = await finished(merchant.idn(2), checked.fields.TID as string);
    expect(row).toMatchObject({ status: 'checked', action: 'CHECK', checkCode: '00' });
    expect(attempts).toEqual(['init:00']);
    expect(callsOf(merchant.min, 'init')[0]!.params).not.toHaveProperty('TID');
    expect(callsOf(merchant.min, 'init')[0]!.params.TYPE).toBe('CHECK');
    expect(platform.sandbox.merchant.customer(merchant.min, merchant.idn(2))?.paid).toBeFalsy();
  });

  it('14: an IDN the billing system does not know is 404, nothing is paid', async () => {
    const merchant = await billingMerchant();
    const unknown = `${merchant.prefix}${'9'.repeat(10 - merchant.prefix.length)}`;
    const refused = await payBill('PAY', unknown);
    expect(refused.status).toBe(404);
    expect(refused.fields).toMatchObject({ ERR: 'NOT_FOUND', BILLING_CODE: '14' });
    const { row } = await finished(unknown, refused.fields.TID as string);
    expect(row).toMatchObject({ status: 'refused', checkCode: '14' });
    expect(callsOf(merchant.min, 'confirm')).toHaveLength(0);
  });

  it('62: nothing due, or paid already, is 409 BILLING_NO_OBLIGATION', async () => {
    const merchant = await billingMerchant();
    const nothingDue = await payBill('PAY', merchant.idn(3));
    expect(nothingDue.status).toBe(409);
    expect(nothingDue.fields).toMatchObject({ ERR: 'BILLING_NO_OBLIGATION', BILLING_CODE: '62' });

    const first = await payBill('PAY', merchant.idn(1));
    expect(first.status).toBe(200);
    await finished(merchant.idn(1), first.fields.TID as string);
    const again = await payBill('PAY', merchant.idn(1));
    expect(again.status).toBe(409);
    expect(again.fields.BILLING_CODE).toBe('62');
    expect(callsOf(merchant.min, 'confirm')).toHaveLength(1);
  });

  it('80: retried at /pay/init while the office waits, and at /pay/confirm along the schedule', async () => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'init', ['80']);
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'confirm', ['80', 503]);
    const paid = await payBill('PAY', merchant.idn(1));
    expect(paid.status).toBe(200);

    const { row, attempts } = await finished(merchant.idn(1), paid.fields.TID as string);
    expect(row).toMatchObject({ status: 'confirmed', confirmCode: '00' });
    expect(attempts).toEqual(['init:80', 'init:00', 'confirm:80', 'confirm:503', 'confirm:00']);
    const confirms = callsOf(merchant.min, 'confirm').map((call) => call.at);
    expect(confirms[1]! - confirms[0]!).toBeGreaterThanOrEqual(SCHEDULE_MS[0]!);
  });

  it('80 until the office gives up is 503 BILLING_UNAVAILABLE, nothing is paid', async () => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'init', Array(50).fill('80'));
    const refused = await payBill('PAY', merchant.idn(1));
    expect(refused.status).toBe(503);
    expect(refused.fields).toMatchObject({ ERR: 'BILLING_UNAVAILABLE', BILLING_CODE: '80' });
    expect(callsOf(merchant.min, 'init').length).toBeGreaterThan(1);
    expect(callsOf(merchant.min, 'confirm')).toHaveLength(0);
  });

  it('a confirmation the merchant never takes fails after the schedule (network errors retried)', async () => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'confirm', Array(10).fill(500));
    const paid = await payBill('PAY', merchant.idn(1));
    const { row, attempts } = await finished(merchant.idn(1), paid.fields.TID as string);
    expect(row.status).toBe('failed');
    expect(attempts.filter((attempt) => attempt.startsWith('confirm'))).toHaveLength(SCHEDULE_MS.length + 1);
  });

  it('94 at /pay/confirm means already done: confirmed, not retried', async () => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'confirm', ['94']);
    const paid = await payBill('PAY', merchant.idn(1));
    const { row, attempts } = await finished(merchant.idn(1), paid.fields.TID as string);
    expect(row).toMatchObject({ status: 'confirmed', confirmCode: '94' });
    expect(attempts).toEqual(['init:00', 'confirm:94']);
  });

  it.each([
    ['13', 'invalid amount'],
    ['14', 'invalid IDN'],
    ['62', 'no obligation'],
    ['93', 'invalid checksum'],
    ['96', 'general error'],
  ] as const)('%s at /pay/confirm (%s) is final: rejected after one attempt', async (code, _meaning) => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'confirm', [code]);
    const paid = await payBill('PAY', merchant.idn(1));
    expect(paid.status).toBe(200);
    const { row, attempts } = await finished(merchant.idn(1), paid.fields.TID as string);
    expect(row).toMatchObject({ status: 'rejected', confirmCode: code });
    expect(attempts).toEqual(['init:00', `confirm:${code}`]);
  });

  it.each([
    ['13', 409, 'BILLING_INVALID_AMOUNT'],
    ['96', 502, 'BILLING_ERROR'],
  ] as const)('%s at /pay/init is refused to the office with %i %s', async (code, status, err) => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(1), 'init', [code]);
    const refused = await payBill('PAY', merchant.idn(1));
    expect(refused.status).toBe(status);
    expect(refused.fields).toMatchObject({ ERR: err, BILLING_CODE: code });
    expect(callsOf(merchant.min, 'confirm')).toHaveLength(0);
  });

  it('93: a billing system that rejects our CHECKSUM is 502 BILLING_CHECKSUM_REJECTED', async () => {
    const merchant = await billingMerchant();
    // The merchant's system holds another secret than the gateway: every CHECKSUM is wrong to it.
    platform.sandbox.merchant.register({ min: merchant.min, secret: 'another secret' });
    const refused = await payBill('PAY', merchant.idn(1));
    expect(refused.status).toBe(502);
    expect(refused.fields).toMatchObject({ ERR: 'BILLING_CHECKSUM_REJECTED', BILLING_CODE: '93' });
    expect(callsOf(merchant.min, 'init')[0]!.checksumValid).toBe(false);
  });

  it('refuses an unknown ACTION before calling the billing system', async () => {
    const merchant = await billingMerchant();
    const badAction = await payBill('REFUND', merchant.idn(1));
    expect(badAction.status).toBe(400);
    expect(badAction.fields).toMatchObject({ ERR: 'BAD_FIELD', FIELD: 'ACTION' });
    expect(callsOf(merchant.min)).toHaveLength(0);
  });

  it('keeps the office waiting only for the check: confirmation retries run in the background', async () => {
    const merchant = await billingMerchant();
    platform.sandbox.merchant.scriptBilling(merchant.min, merchant.idn(2), 'confirm', [503, 503]);
    const paid = await payBill('PAY', merchant.idn(2));
    expect(paid.status).toBe(200);
    const [row] = await payment(paid.fields.TID as string);
    expect(['confirming', 'confirmed']).toContain(row!.status);
    await eventually(async () =>
      (await payment(paid.fields.TID as string))[0]?.status === 'confirmed' ? true : undefined,
    );
  });
});
