import { WithStartWorkflowOperation } from '@temporalio/client';
import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerActivities } from '../../activities/collect/ledger.ts';
import { createObligationActivities } from '../../activities/collect/obligation.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectLedgerEntries, collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import {
  type BillingPaymentInput,
  billingCheckedUpdate,
  billingWorkflowId,
  obligationWorkflowId,
  payObligationUpdate,
} from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from './epay-client.ts';

/**
 * The collect ledger end to end (decision 0029): every kind's final state through the demo paths
 * posts balanced entries once, balances are read by the merchant and the operator, provider accounts
 * are credited by send.cgi, transferred and paid out. Fee 1% (COLLECT_FEE_BPS=100).
 */
const ADMIN_TOKEN = 'admin-token-for-the-ledger-tests-0123456789';
const DEMO_OFFICE = 'desk_cash:000001';
let platform: TestPlatform;
let merchant: { min: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { ADMIN_TOKEN, COLLECT_FEE_BPS: '100', COLLECT_PAYOUT_EXPIRY: '3s' },
  });
  merchant = await platform.createMerchant({ name: 'Ledger merchant' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const url = (path: string) => `${platform.collectUrl}${path}`;
const call = (path: string, fields: Record<string, string>, who = merchant) =>
  getText(url(path), signedPacket({ MIN: who.min, INVOICE: newInvoice(), ...fields }, who.secret));
const statusBecomes = (idn: string, status: string) =>
  eventually(async () => {
    const [row] = await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
    return row?.status === status ? row : undefined;
  }, 15_000);

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${platform.apiUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { error?: { code: string } },
  };
};
/** The operator's view of every account's balance (minor units), `<account> <currency>` → balance. */
const balances = async () => {
  const { body } = await admin('GET', '/collect/ledger/accounts');
  const accounts = body.accounts as { account: string; currency: string; balanceMinor: number }[];
  return Object.fromEntries(accounts.map((row) => [`${row.account} ${row.currency}`, row.balanceMinor]));
};
const merchantBalance = async (who = merchant, currency = 'BGN') => {
  const answer = await getText(
    url('/merchant/balance'),
    signedPacket({ MIN: who.min, CURRENCY: currency }, who.secret),
  );
  expect(answer.status, answer.body).toBe(200);
  return answer.fields.BALANCE;
};
const providerAccount = async (account: string) =>
  (await admin('GET', `/collect/provider-accounts/${account}`)).body;
const ledgerLines = async (idn: string) =>
  platform.db
    .select({ key: collectLedgerTransactions.key })
    .from(collectLedgerTransactions)
    .where(eq(collectLedgerTransactions.idn, idn))
    .orderBy(collectLedgerTransactions.id);

describe('merchant balance', () => {
  it('a bill paid at the (demo) desk credits the merchant less the 1% fee; the desk holds the cash', async () => {
    const fresh = await platform.createMerchant({ name: 'Fresh merchant' });
    expect(await merchantBalance(fresh)).toBe('0.00');
    const before = await balances();
    const registered = await call(
      '/office/reg_bill.cgi',
      { AMOUNT: '200.00', EXP_TIME: expTimeIn(86_400_000) },
      fresh,
    );
    const idn = registered.fields.IDN ?? '';
    const paid = await getText(url('/office/pay_bill.cgi'), { ACTION: 'PAY', IDN: idn });
    expect(paid.fields.STATUS, paid.body).toBe('PAID');

    expect(await merchantBalance(fresh)).toBe('198.00');
    expect(await merchantBalance(fresh, 'EUR')).toBe('0.00');
    const after = await balances();
    expect((after[`${DEMO_OFFICE} BGN`] ?? 0) - (before[`${DEMO_OFFICE} BGN`] ?? 0)).toBe(20_000);
    expect((after['fees BGN'] ?? 0) - (before['fees BGN'] ?? 0)).toBe(200);
    expect((await ledgerLines(idn)).map((line) => line.key)).toEqual([`settlement:${idn}`]);
  });

  it('is refused with a bad checksum, and for a merchant that does not exist', async () => {
    const packet = signedPacket({ MIN: merchant.min }, merchant.secret);
    const forged = await getText(url('/merchant/balance'), { ...packet, CHECKSUM: '0'.repeat(40) });
    expect(forged.status).toBe(401);
    expect(forged.fields.ERR).toBe('BAD_CHECKSUM');
    expect(forged.fields.BALANCE).toBeUndefined();
    const stranger = await getText(
      url('/merchant/balance'),
      signedPacket({ MIN: 'D000000001' }, merchant.secret),
    );
    expect(stranger.status).toBeGreaterThanOrEqual(400);
    expect(stranger.fields.BALANCE).toBeUndefined();
    const badCurrency = await getText(
      url('/merchant/balance'),
      signedPacket({ MIN: merchant.min, CURRENCY: 'XXX' }, merchant.secret),
    );
    expect(badCurrency.status).toBe(400);
    expect(badCurrency.fields).toMatchObject({ ERR: 'BAD_FIELD', FIELD: 'CURRENCY' });
  });
});

describe('cash payouts', () => {
  it('reserve the amount when registered, pay the desk’s cash out when collected', async () => {
    const payer = await platform.createMerchant({ name: 'Payout merchant' });
    const registered = await call(
      '/office/send.cgi',
      { AMOUNT: '50.00', RCPT_NAME: 'Ivan Petrov', RCPT_ID: '8001011234', EXP_TIME: expTimeIn(86_400_000) },
      payer,
    );
    const idn = registered.fields.IDN ?? '';
    expect(idn, registered.body).toMatch(/^\d{10}$/);
    // The workflow reserves at its start: the merchant may go below zero (decision 0029).
    await eventually(async () => ((await merchantBalance(payer)) === '-50.00' ? true : undefined));
    const before = await balances();

    const collected = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: idn });
    expect(collected.fields.STATUS, collected.body).toBe('PAID');
    expect(await merchantBalance(payer)).toBe('-50.50');
    const after = await balances();
    expect((after[`${DEMO_OFFICE} BGN`] ?? 0) - (before[`${DEMO_OFFICE} BGN`] ?? 0)).toBe(-5_000);
    expect((after['payouts_owed BGN'] ?? 0) - (before['payouts_owed BGN'] ?? 0)).toBe(-5_000);
    expect((await ledgerLines(idn)).map((line) => line.key)).toEqual([
      `payout-reserved:${idn}`,
      `settlement:${idn}`,
    ]);
  });

  it('are settled only through a cash desk: another source is refused by the workflow', async () => {
    const registered = await call('/office/send.cgi', {
      AMOUNT: '5.00',
      RCPT_NAME: 'Ivan Petrov',
      RCPT_ID: '8001011234',
      EXP_TIME: expTimeIn(86_400_000),
    });
    const idn = registered.fields.IDN ?? '';
    const handle = platform.client.workflow.getHandle(obligationWorkflowId('payout_office', idn));
    const fromStatement = handle.executeUpdate(payObligationUpdate, {
      args: [
        { stan: '1', bcode: '1', source: { channel: 'bank_statement', statementId: 'st_x', entryRef: 'E' } },
      ],
    });
    await expect(fromStatement).rejects.toMatchObject({ cause: { type: 'WRONG_KIND' } });
    const [row] = await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
    expect(row?.status).toBe('PENDING');
  });

  it('give the reservation back when they expire', async () => {
    const payer = await platform.createMerchant({ name: 'Expiring payout merchant' });
    const registered = await call(
      '/office/send.cgi',
      { AMOUNT: '30.00', RCPT_NAME: 'Maria Ivanova', RCPT_ID: '9002021234' },
      payer,
    );
    const idn = registered.fields.IDN ?? '';
    await statusBecomes(idn, 'EXPIRED');
    expect(await merchantBalance(payer)).toBe('0.00');
    expect((await ledgerLines(idn)).map((line) => line.key)).toEqual([
      `payout-reserved:${idn}`,
      `payout-released:${idn}`,
    ]);
  });
});

describe('provider accounts', () => {
  it('send.cgi credits the account; the operator transfers it and pays it out in cash', async () => {
    const sender = await platform.createMerchant({ name: 'Sending merchant' });
    const account = `KIN:${Date.now()}`;
    const other = `EMAIL:holder-${Date.now()}@example.com`;
    const sent = await call(
      '/send/send.cgi',
      { AMOUNT: '100.00', RCPT: account.slice(4), RCPT_TYPE: 'KIN' },
      sender,
    );
    await statusBecomes(sent.fields.IDN ?? '', 'PAID');
    expect((await providerAccount(account)).balances).toEqual([{ currency: 'BGN', balanceMinor: 10_000 }]);
    expect(await merchantBalance(sender)).toBe('-101.00');

    const transfer = { reference: `tr-${Date.now()}`, to: other, currency: 'BGN', amountMinor: 4_000 };
    const moved = await admin('POST', `/collect/provider-accounts/${account}/transfers`, transfer);
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(moved.body.balances).toEqual([{ currency: 'BGN', balanceMinor: 6_000 }]);
    // The same request again changes nothing; the reference for another transfer is a conflict.
    const again = await admin('POST', `/collect/provider-accounts/${account}/transfers`, transfer);
    expect(again.status).toBe(200);
    expect(again.body.balances).toEqual([{ currency: 'BGN', balanceMinor: 6_000 }]);
    const reused = await admin('POST', `/collect/provider-accounts/${account}/transfers`, {
      ...transfer,
      amountMinor: 1,
    });
    expect(reused.status).toBe(409);
    expect(reused.body.error?.code).toBe('reference_conflict');
    // Never below zero.
    const tooMuch = await admin('POST', `/collect/provider-accounts/${account}/transfers`, {
      ...transfer,
      reference: `${transfer.reference}-big`,
      amountMinor: 6_001,
    });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error?.code).toBe('insufficient_funds');
    expect((await providerAccount(other)).balances).toEqual([{ currency: 'BGN', balanceMinor: 4_000 }]);

    // A cash payout from the account, registered under the operator's back-office merchant.
    const backOffice = await platform.createMerchant({ name: 'Wallet back office' });
    const payout = {
      reference: `po-${Date.now()}`,
      merchantMin: backOffice.min,
      currency: 'BGN',
      amountMinor: 2_500,
      recipientName: 'Petar Georgiev',
      recipientId: '7503031234',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const tooLarge = await admin('POST', `/collect/provider-accounts/${account}/payouts`, {
      ...payout,
      reference: `${payout.reference}-big`,
      amountMinor: 6_001,
    });
    expect(tooLarge.status).toBe(409);
    expect(tooLarge.body.error?.code).toBe('insufficient_funds');
    expect(
      (
        await platform.db
          .select({ n: count() })
          .from(collectObligations)
          .where(eq(collectObligations.invoice, `${payout.reference}-big`))
      )[0]?.n,
    ).toBe(0);

    const registered = await admin('POST', `/collect/provider-accounts/${account}/payouts`, payout);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const idn = String(registered.body.idn);
    expect((await providerAccount(account)).balances).toEqual([{ currency: 'BGN', balanceMinor: 3_500 }]);
    expect((await admin('POST', `/collect/provider-accounts/${account}/payouts`, payout)).body.idn).toBe(idn);

    const collected = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: idn });
    expect(collected.fields.STATUS, collected.body).toBe('PAID');
    expect((await providerAccount(account)).balances).toEqual([{ currency: 'BGN', balanceMinor: 3_500 }]);
    // The back office's balance is not touched: no fee on a provider account's payout.
    expect(await merchantBalance(backOffice)).toBe('0.00');
    const movements = (await providerAccount(account)).movements as { kind: string; amountMinor: number }[];
    expect(movements.map((line) => [line.kind, line.amountMinor])).toEqual([
      ['payout_reserved', -2_500],
      ['transfer', -4_000],
      ['settlement', 10_000],
    ]);
  });

  it('an uncollected payout gives the provider account its money back when it expires', async () => {
    const sender = await platform.createMerchant({ name: 'Second sender' });
    const account = `GSM:359${String(Date.now()).slice(-9)}`;
    const sent = await call(
      '/send/send.cgi',
      { AMOUNT: '10.00', RCPT: `+${account.slice(4)}`, RCPT_TYPE: 'GSM' },
      sender,
    );
    await statusBecomes(sent.fields.IDN ?? '', 'PAID');
    const backOffice = await platform.createMerchant({ name: 'Second back office' });
    // No expiresAt: COLLECT_PAYOUT_EXPIRY (3 s here).
    const registered = await admin('POST', `/collect/provider-accounts/${account}/payouts`, {
      reference: `po-${Date.now()}`,
      merchantMin: backOffice.min,
      currency: 'BGN',
      amountMinor: 1_000,
      recipientName: 'Elena Dimitrova',
      recipientId: '8804041234',
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect((await providerAccount(account)).balances).toEqual([{ currency: 'BGN', balanceMinor: 0 }]);
    const idn = String(registered.body.idn);
    await statusBecomes(idn, 'EXPIRED');
    expect((await providerAccount(account)).balances).toEqual([{ currency: 'BGN', balanceMinor: 1_000 }]);
    expect((await ledgerLines(idn)).map((line) => line.key)).toEqual([
      `payout-reserved:${idn}`,
      `payout-released:${idn}`,
    ]);
  });

  it('refuse a malformed account id and an unknown merchant, naming the field', async () => {
    const badAccount = await admin('GET', '/collect/provider-accounts/nobody');
    expect(badAccount.status).toBe(400);
    const unknown = await admin('POST', `/collect/provider-accounts/KIN:1/payouts`, {
      reference: 'x1',
      merchantMin: 'D000000009',
      currency: 'BGN',
      amountMinor: 1,
      recipientName: 'Ana Ivanova',
      recipientId: '12345',
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('merchantMin');
  });
});

describe('billing IDNs', () => {
  it('a billing IDN paid at a desk posts desk cash → merchant once the office takes the money', async () => {
    const biller = await platform.createSandboxMerchant({ billingIdnPrefix: '955' });
    // The sandbox merchant's billing system owes 25.00 on <prefix>…1.
    const idn = '9550000001';
    const tid = `20270715103000${String(Date.now()).slice(-6)}000001`;
    const source = {
      channel: 'cash_desk' as const,
      officeId: '000955',
      operatorId: 'dop_test',
      receipt: 'R-955',
    };
    const outcome = await platform.client.workflow.executeUpdateWithStart(billingCheckedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation('billingPayment', {
        workflowId: billingWorkflowId(idn, tid),
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [
          {
            tid,
            idn,
            merchantMin: biller.min,
            action: 'PAY',
            date: '20270715103000',
            checkTimeoutMs: 5_000,
            requestTimeoutMs: 2_000,
            retryScheduleMs: [200],
            source,
          } satisfies BillingPaymentInput,
        ],
      }),
    });
    expect(outcome).toMatchObject({ result: 'ok', amountMinor: 2_500 });
    const [posted] = await platform.db
      .select()
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.key, `billing:${tid}`));
    expect(posted?.detail).toEqual({ source });
    expect(await merchantBalance(biller)).toBe('24.75');
    expect((await balances())['desk_cash:000955 BGN']).toBe(2_500);
  });
});

describe('idempotence', () => {
  it('a retried or doubled status activity posts the settlement once', async () => {
    const registered = await call('/office/reg_bill.cgi', {
      AMOUNT: '12.34',
      EXP_TIME: expTimeIn(86_400_000),
    });
    const idn = registered.fields.IDN ?? '';
    // The workflow's activity, called as a retry would call it: twice at once, then once more.
    const { recordObligationStatus } = createObligationActivities({
      db: platform.db,
      config: { COLLECT_FEE_BPS: 100 },
    });
    const change = {
      idn,
      status: 'PAID' as const,
      paidAmountMinor: 1_234,
      payTime: '20270715103000',
      stan: '123456',
      bcode: '654321',
      source: { channel: 'cash_desk' as const, officeId: '000777', operatorId: 'op', receipt: 'R-1' },
      at: new Date().toISOString(),
    };
    await Promise.all([recordObligationStatus(change), recordObligationStatus(change)]);
    await recordObligationStatus(change);
    const transactions = await ledgerLines(idn);
    expect(transactions.map((line) => line.key)).toEqual([`settlement:${idn}`]);
    const entries = await platform.db
      .select({ n: count() })
      .from(collectLedgerEntries)
      .innerJoin(
        collectLedgerTransactions,
        eq(collectLedgerTransactions.id, collectLedgerEntries.transactionId),
      )
      .where(eq(collectLedgerTransactions.idn, idn));
    expect(entries[0]?.n).toBe(3); // desk cash, merchant, fee
    expect((await balances())['desk_cash:000777 BGN']).toBe(1_234);
  });

  it('a retried reservation reserves once', async () => {
    const payer = await platform.createMerchant({ name: 'Retried reservation' });
    const registered = await call(
      '/office/send.cgi',
      { AMOUNT: '7.00', RCPT_NAME: 'Ivan Petrov', RCPT_ID: '8001011234', EXP_TIME: expTimeIn(86_400_000) },
      payer,
    );
    const idn = registered.fields.IDN ?? '';
    const { reservePayout } = createLedgerActivities({ db: platform.db });
    const at = new Date().toISOString();
    await Promise.all([reservePayout({ idn, at }), reservePayout({ idn, at })]);
    await reservePayout({ idn, at });
    expect((await ledgerLines(idn)).map((line) => line.key)).toEqual([`payout-reserved:${idn}`]);
    expect(await merchantBalance(payer)).toBe('-7.00');
  });
});
