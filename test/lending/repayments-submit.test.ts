import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { camt054 } from '../collect/camt-builder.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type CollectMerchant, loanOf, makeMerchant, notified, QUIET_MS } from './disbursement-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  historyOf,
  type LendingTestTenant,
  lendingCall,
  notifyLending,
  pause,
  registerCustomer,
} from './support.ts';

/**
 * SubmitRepayment by bank transfer end to end over HTTP (decision 0045): the customer submits, lending
 * registers a deposit slip at the collection gateway (its merchant interface) and answers where to pay;
 * the bank's camt.054 imported at the gateway settles the slip; the gateway notifies lending and the
 * loan books the repayment once (a repeated notification books nothing). Refusals by status, amount and
 * owner.
 */

const ADMIN_TOKEN = 'admin-token-for-the-submit-repayment-tests-0123456789';

let platform: TestPlatform;
let tenant: LendingTestTenant;
let merchant: CollectMerchant;
let customer: Awaited<ReturnType<typeof registerCustomer>>;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  merchant = await makeMerchant(platform, tenant);
  customer = await registerCustomer(platform, tenant, completeDetails());
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

interface Submission {
  submissionId: string;
  loanId: string;
  mode: string;
  channel: string;
  status: string;
  amount: string;
  currency: string;
  reference: string | null;
  invoice: string;
  iban: string | null;
  beneficiary: string | null;
  expiresAt: string | null;
  reason: string | null;
  repaymentId: string | null;
}

const today = () => new Date().toISOString().slice(0, 10);

/** A loan of 1200.00 EUR over 12 months created by management, paid out `daysAgo`, of the customer. */
async function disbursedLoan(daysAgo: number, owner = customer): Promise<LoanView> {
  const created = await lendingCall<LoanView>(platform, 'POST', '/Management/Loans', {
    key: tenant.keys.management,
    body: {
      customerId: owner.customerId,
      productName: 'Personal 12',
      amount: '1200.00',
      term: 12,
      disbursements: [{ amount: '1200.00', date: addDays(today(), -daysAgo) }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const submit = (body: Record<string, unknown>, token = customer.token) =>
  lendingCall<Submission>(platform, 'POST', '/PaymentOptions/SubmitRepayment', {
    key: tenant.keys.paymentOptions,
    token,
    body,
  });
/** The spec's call: the parameters in the query (a body only when given). */
const submitByQuery = (query: Record<string, string>, body?: Record<string, unknown>) =>
  lendingCall<Submission>(platform, 'POST', '/PaymentOptions/SubmitRepayment', {
    key: tenant.keys.paymentOptions,
    token: customer.token,
    query,
    ...(body ? { body } : {}),
  });
const repaymentAmounts = async (loanId: string) =>
  (
    await lendingCall<{ overdue: string; dueNow: string; payOff: string; status: string }>(
      platform,
      'GET',
      `/PaymentOptions/RepaymentAmounts/${loanId}`,
      { key: tenant.keys.paymentOptions, token: customer.token },
    )
  ).body;

let statements = 0;
/** The bank's camt.054 of a credit quoting `idn`, imported at the gateway by its operator. */
async function bankCredits(idn: string, amount: string) {
  statements += 1;
  const response = await fetch(`${platform.apiUrl}/admin/collect/statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    body: camt054({
      id: `NTF-LR-${Date.now()}-${statements}`,
      entries: [
        {
          ref: `LR-${Date.now()}-${statements}`,
          amount,
          currency: 'EUR',
          ustrd: [`Loan repayment IDN ${idn}`],
        },
      ],
    }),
  });
  const body = (await response.json()) as { statements: { statementId: string }[] };
  expect(response.status, JSON.stringify(body)).toBe(202);
  const statementId = body.statements[0]?.statementId ?? '';
  return eventually(
    async () => {
      const read = await fetch(`${platform.apiUrl}/admin/collect/statements/${statementId}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const statement = (await read.json()) as { status: string; settled: number };
      return statement.status === 'imported' ? statement : undefined;
    },
    30_000,
    `statement ${statementId} imported`,
  );
}

describe('SubmitRepayment by bank transfer', () => {
  it('a deposit slip to pay; the statement settles it at the gateway; the loan books it once', async () => {
    const loan = await disbursedLoan(40);
    expect(loan.status).toBe('Past Due');
    const before = await repaymentAmounts(loan.loanId);
    const overdue = before.overdue;
    expect(Number(overdue)).toBeGreaterThan(0);

    const submitted = await submit({ loanId: loan.loanId, amount: overdue, mode: 'bankTransfer' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    expect(submitted.body).toMatchObject({
      loanId: loan.loanId,
      mode: 'Regular payment',
      channel: 'bankTransfer',
      status: 'pending',
      amount: overdue,
      currency: 'EUR',
      iban: 'BG80BNBG96611020345678',
      beneficiary: 'Integration Platform Collections',
      repaymentId: null,
    });
    const { reference, invoice, submissionId } = submitted.body;
    expect(reference).toMatch(/^\d{10}$/);
    expect(invoice).toBe(`LR-${submissionId}`);
    expect(Date.parse(submitted.body.expiresAt ?? '')).toBeGreaterThan(Date.now() + 86_400_000);
    // Nothing is booked before the money arrives.
    expect((await loanOf(platform, tenant, loan.loanId)).servicing?.repayments).toEqual([]);

    expect(await bankCredits(reference ?? '', overdue)).toMatchObject({ settled: 1 });
    const notification = await notified(platform, merchant, invoice, 'PAID');
    expect(notification).toMatchObject({ delivery: 'delivered', attemptCount: 1 });
    expect(notification.attempts[0]?.reply).toBe('OK');

    const booked = await eventually(
      async () => {
        const read = await loanOf(platform, tenant, loan.loanId);
        return read.servicing?.repayments.length ? read : undefined;
      },
      15_000,
      'the repayment booked',
    );
    expect(booked.servicing?.repayments).toEqual([
      expect.objectContaining({
        id: `rpm_${submissionId.slice(4)}`,
        amount: overdue,
        mode: 'Regular payment',
        reference: invoice,
        reversed: false,
      }),
    ]);
    expect(booked.status).toBe('Active');
    const after = await repaymentAmounts(loan.loanId);
    expect(after).toMatchObject({ overdue: '0.00', status: 'Active' });
    expect(Number(after.payOff)).toBeLessThan(Number(before.payOff));
    const history = await historyOf(platform, tenant, loan.loanId);
    expect(history.map((entry) => entry.comments).join('\n')).toContain(
      `received by bank transfer (IDN ${reference})`,
    );

    // The gateway delivers at least once: the same PAID again books nothing; an unknown LR- INVOICE is NO.
    const replayed = await notifyLending(platform, tenant.tenantId, merchant.secret, [
      `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270101120000:STAN=123456:BCODE=654321`,
      'INVOICE=LR-sub_00000000000000ff:STATUS=PAID',
    ]);
    expect(replayed).toEqual({
      status: 200,
      body: `INVOICE=${invoice}:STATUS=OK\nINVOICE=LR-sub_00000000000000ff:STATUS=NO\n`,
    });
    await pause(QUIET_MS);
    const again = await loanOf(platform, tenant, loan.loanId);
    expect(again.servicing?.repayments).toHaveLength(1);
    expect(await historyOf(platform, tenant, loan.loanId)).toHaveLength(history.length);
  }, 90_000);

  it('a reference answers its first submission for the same request, 422 for another', async () => {
    const loan = await disbursedLoan(10);
    const body = { loanId: loan.loanId, amount: '10.00', mode: 'bankTransfer', reference: 'slip-1' };
    const first = await submit(body);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await submit({ ...body, amount: '10' });
    expect(again.status).toBe(202);
    expect(again.body.submissionId).toBe(first.body.submissionId);
    const other = await submit({ ...body, amount: '11.00' });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({
      code: 'idempotency_key_reused',
      fields: [{ field: 'reference' }],
    });
  }, 60_000);

  it('refusals: wrong status, more than owed, another customer’s loan, no card, bad input', async () => {
    const application = await lendingCall<LoanView>(platform, 'POST', '/Management/Loans', {
      key: tenant.keys.management,
      body: { customerId: customer.customerId, productName: 'Personal 12', amount: '1200.00', term: 12 },
    });
    const notServiced = await submit({
      loanId: application.body.loanId,
      amount: '10.00',
      mode: 'bankTransfer',
    });
    expect(notServiced.status).toBe(409);
    expect(notServiced.body.error).toMatchObject({ code: 'invalid_loan_status' });
    expect(notServiced.body.error?.message).toContain(`status ${application.body.status}`);

    const loan = await disbursedLoan(10);
    const payOff = (await repaymentAmounts(loan.loanId)).payOff;
    const tooMuch = await submit({
      loanId: loan.loanId,
      amount: (Number(payOff) + 0.01).toFixed(2),
      mode: 'bankTransfer',
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatchObject({ code: 'repayment_exceeds_balance' });
    expect(tooMuch.body.error?.fields?.[0]?.field).toBe('amount');

    const other = await registerCustomer(platform, tenant, completeDetails());
    const theirs = await submit({ loanId: loan.loanId, amount: '10.00', mode: 'bankTransfer' }, other.token);
    expect(theirs.status).toBe(404);

    const noCard = await submit({ loanId: loan.loanId, amount: '10.00', mode: 'card' });
    expect(noCard.status).toBe(409);
    expect(noCard.body.error?.code).toBe('no_card');
    const notACard = await submit({
      loanId: loan.loanId,
      amount: '10.00',
      mode: 'card',
      paymentMethodId: 'bac_1',
    });
    expect(notACard.status).toBe(400);
    const badMode = await submit({ loanId: loan.loanId, amount: '10.00', mode: 'cash' });
    expect(badMode.status).toBe(400);
    const badAmount = await submit({ loanId: loan.loanId, amount: '-5', mode: 'bankTransfer' });
    expect(badAmount.status).toBe(400);
    const subCent = await submit({ loanId: loan.loanId, amount: '10.001', mode: 'bankTransfer' });
    expect(subCent.status).toBe(400);
    expect(subCent.body.error?.fields?.[0]?.field).toBe('amount');
    const managementKey = await lendingCall(platform, 'POST', '/PaymentOptions/SubmitRepayment', {
      key: tenant.keys.management,
      token: customer.token,
      body: { loanId: loan.loanId, amount: '10.00', mode: 'bankTransfer' },
    });
    expect(managementKey.status).toBe(403);
    // Nothing was submitted by any of them.
    expect((await loanOf(platform, tenant, loan.loanId)).servicing?.repayments).toEqual([]);
  }, 60_000);
});

describe('SubmitRepayment as the spec calls it (query parameters, repayment modes)', () => {
  it('an Early repayment by query parameters: principal only, booked as an Early repayment', async () => {
    const loan = await disbursedLoan(10);
    const submitted = await submitByQuery({
      loanId: loan.loanId,
      amount: '100.00',
      mode: 'Early repayment',
      channel: 'bankTransfer',
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    expect(submitted.body).toMatchObject({
      mode: 'Early repayment',
      channel: 'bankTransfer',
      status: 'pending',
      amount: '100.00',
    });
    await bankCredits(submitted.body.reference ?? '', '100.00');
    const booked = await eventually(
      async () => {
        const read = await loanOf(platform, tenant, loan.loanId);
        return read.servicing?.repayments.length ? read : undefined;
      },
      15_000,
      'the early repayment booked',
    );
    expect(booked.servicing?.repayments).toEqual([
      expect.objectContaining({
        amount: '100.00',
        mode: 'Early repayment',
        reference: submitted.body.invoice,
      }),
    ]);
    // Principal only, from the last instalment backwards: the first instalment still owes all of it.
    expect(booked.servicing?.outstandingPrincipal).toBe('1100.00');
    const instalments = booked.servicing?.instalments ?? [];
    expect(instalments[0]?.paid).toBe('0.00');
    expect(Number(instalments.at(-1)?.paid)).toBe(100);
  }, 90_000);

  it('mode is required (0.1.0’s body form aside), channel defaults to card; query and body must agree; Early is at most the principal', async () => {
    const loan = await disbursedLoan(10);
    // The spec's three parameters only: a Regular payment charged to the card (this customer has none).
    const specCall = await submitByQuery({ loanId: loan.loanId, amount: '10.00', mode: 'Regular payment' });
    expect(specCall.status).toBe(409);
    expect(specCall.body.error?.code).toBe('no_card');
    // `mode` is required, as the spec marks it (decision 0086): missing, 400 naming it.
    const noMode = await submitByQuery({ loanId: loan.loanId, amount: '10.00', channel: 'bankTransfer' });
    expect(noMode.status, JSON.stringify(noMode.body)).toBe(400);
    expect(noMode.body.error?.fields?.map((field) => field.field)).toEqual(['mode']);
    const noModeInBody = await submit({ loanId: loan.loanId, amount: '10.00', channel: 'bankTransfer' });
    expect(noModeInBody.status, JSON.stringify(noModeInBody.body)).toBe(400);
    expect(noModeInBody.body.error?.fields?.map((field) => field.field)).toEqual(['mode']);
    // 0.1.0's body, whose `mode` named the channel, still books a Regular payment.
    const legacy = await submit({ loanId: loan.loanId, amount: '10.00', mode: 'bankTransfer' });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(202);
    expect(legacy.body).toMatchObject({ mode: 'Regular payment', channel: 'bankTransfer' });

    const conflict = await submitByQuery(
      { loanId: loan.loanId, amount: '10.00', mode: 'Regular payment', channel: 'bankTransfer' },
      { amount: '11.00' },
    );
    expect(conflict.status).toBe(400);
    expect(conflict.body.error?.fields?.[0]?.field).toBe('amount');
    const legacyConflict = await submit({
      loanId: loan.loanId,
      amount: '10.00',
      mode: 'card',
      channel: 'bankTransfer',
    });
    expect(legacyConflict.status).toBe(400);
    expect(legacyConflict.body.error?.fields?.[0]?.field).toBe('channel');
    const missing = await submitByQuery({
      loanId: loan.loanId,
      mode: 'Regular payment',
      channel: 'bankTransfer',
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error?.fields?.[0]?.field).toBe('amount');
    const badMode = await submitByQuery({ loanId: loan.loanId, amount: '10.00', mode: 'Later' });
    expect(badMode.status).toBe(400);

    // The pay-off exceeds the principal by the interest: an Early repayment pays principal only.
    const { payOff } = await repaymentAmounts(loan.loanId);
    expect(Number(payOff)).toBeGreaterThan(1200.01);
    const early = await submitByQuery({
      loanId: loan.loanId,
      amount: '1200.01',
      mode: 'Early repayment',
      channel: 'bankTransfer',
    });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ code: 'repayment_exceeds_balance' });
    expect(early.body.error?.fields?.[0]?.field).toBe('amount');
  }, 60_000);
});
