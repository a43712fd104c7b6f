import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import { lendingRepaymentSubmissions } from '../../db/schema/lending-servicing.ts';
import { loanWorkflowId } from '../../domain/lending/loan-process.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { type CamtEntry, camt053 } from '../collect/camt-builder.ts';
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
 * A repayment paid by bank transfer, then taken back by the bank (decision 0069): the collection gateway
 * un-pays the deposit slip when a camt.053 reverses the credit that paid it (decision 0063) and notifies
 * lending `STATUS=REVERSED`; the loan's workflow reverses the repayment, its instalments are due again and
 * the status follows; the same notification again changes nothing; a later payment of the slip books it
 * again. End to end over HTTP through the gateway's statement import, and, for the orderings the gateway
 * rarely produces, signed notification POSTs to lending's receiver as the gateway sends them.
 */

const ADMIN_TOKEN = 'admin-token-for-the-repayment-reversed-tests-0123456789';

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
  status: string;
  amount: string;
  reference: string | null;
  invoice: string;
  reason: string | null;
  repaymentId: string | null;
}
type Repayment = NonNullable<LoanView['servicing']>['repayments'][number];

const today = () => new Date().toISOString().slice(0, 10);

/** A loan of 1200.00 EUR over 12 months created by management, paid out `daysAgo`. */
async function disbursedLoan(daysAgo: number): Promise<LoanView> {
  const created = await lendingCall<LoanView>(platform, 'POST', '/Management/Loans', {
    key: tenant.keys.management,
    body: {
      customerId: customer.customerId,
      productName: 'Personal 12',
      amount: '1200.00',
      term: 12,
      disbursements: [{ amount: '1200.00', date: addDays(today(), -daysAgo) }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** SubmitRepayment by bank transfer with a client reference: the same call again reads the submission. */
async function submitTransfer(loanId: string, amount: string, reference: string): Promise<Submission> {
  const answer = await lendingCall<Submission>(platform, 'POST', '/PaymentOptions/SubmitRepayment', {
    key: tenant.keys.paymentOptions,
    token: customer.token,
    body: { loanId, amount, mode: 'Regular payment', channel: 'bankTransfer', reference },
  });
  // 202 while the slip waits for its money; a repeat after it was paid answers 201 as a paid charge does.
  expect(answer.status, JSON.stringify(answer.body)).toBe(answer.body.status === 'paid' ? 201 : 202);
  return answer.body;
}

const repaymentAmounts = async (loanId: string) =>
  (
    await lendingCall<{ overdue: string; payOff: string; status: string }>(
      platform,
      'GET',
      `/PaymentOptions/RepaymentAmounts/${loanId}`,
      { key: tenant.keys.paymentOptions, token: customer.token },
    )
  ).body;

let statements = 0;
/** The bank's camt.053 with `entries`, imported at the gateway by its operator. */
async function importStatement(entries: CamtEntry[]) {
  statements += 1;
  const response = await fetch(`${platform.apiUrl}/admin/collect/statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    body: camt053({ id: `STM-LRV-${Date.now()}-${statements}`, entries }),
  });
  const body = (await response.json()) as { statements: { statementId: string }[] };
  expect(response.status, JSON.stringify(body)).toBe(202);
  const statementId = body.statements[0]?.statementId ?? '';
  return eventually(
    async () => {
      const read = await fetch(`${platform.apiUrl}/admin/collect/statements/${statementId}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const statement = (await read.json()) as { status: string; settled: number; reversed?: number };
      return statement.status === 'imported' ? statement : undefined;
    },
    30_000,
    `statement ${statementId} imported`,
  );
}

/** A credit of `amount` EUR quoting the slip's IDN, as the bank books it. */
const transfer = (idn: string, amount: string): CamtEntry => ({
  ref: `LRV-${Date.now()}-${++statements}`,
  amount,
  currency: 'EUR',
  ustrd: [`Loan repayment IDN ${idn}`],
});

/** The loan once `check` holds of it. */
const loanWhen = (loanId: string, check: (loan: LoanView) => boolean, what: string) =>
  eventually(
    async () => {
      const loan = await loanOf(platform, tenant, loanId);
      return check(loan) ? loan : undefined;
    },
    20_000,
    what,
  );

const repaymentsOf = (loan: LoanView): Repayment[] => loan.servicing?.repayments ?? [];
const comments = async (loanId: string) =>
  (await historyOf(platform, tenant, loanId)).map((entry) => entry.comments ?? '');

/** A signed notification line as the gateway sends it; answers lending's reply body. */
const notify = async (...lines: string[]) => {
  const answer = await notifyLending(platform, tenant.tenantId, merchant.secret, lines);
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('a bank-transfer repayment the bank takes back (decision 0069)', () => {
  it('end to end: paid by a camt.053, reversed by the next one: the repayment reversed, the instalment due again; paid again: booked again', async () => {
    const loan = await disbursedLoan(40);
    expect(loan.status).toBe('Past Due');
    const { overdue } = await repaymentAmounts(loan.loanId);
    const submitted = await submitTransfer(loan.loanId, overdue, 'reversed-e2e');
    const { invoice, submissionId } = submitted;
    const idn = submitted.reference ?? '';

    // Day 1: the transfer arrives; the gateway settles the slip and lending books it.
    const paying = transfer(idn, overdue);
    expect(await importStatement([paying])).toMatchObject({ settled: 1 });
    await notified(platform, merchant, invoice, 'PAID');
    const paid = await loanWhen(
      loan.loanId,
      // The loan's row and its servicing are two reads: wait for both.
      (read) => repaymentsOf(read).length === 1 && read.status === 'Active',
      'the repayment booked, the loan Active',
    );
    const firstInstalment = paid.servicing?.instalments[0];
    expect(firstInstalment).toMatchObject({ outstanding: '0.00', overdue: false });

    // Day 2: the bank takes the credit back (a DBIT with RvslInd and the credit's references).
    expect(
      await importStatement([{ ...paying, credit: false, reversal: true, ustrd: ['Reversal'] }]),
    ).toMatchObject({ reversed: 1 });
    await notified(platform, merchant, invoice, 'REVERSED');
    const notices = await platform.db
      .select({
        status: collectNotifications.status,
        delivery: collectNotifications.delivery,
        payTime: collectNotifications.payTime,
      })
      .from(collectNotifications)
      .where(eq(collectNotifications.invoice, invoice))
      .orderBy(asc(collectNotifications.createdAt));
    // The REVERSED names the payment taken back: the PAID's PAY_TIME (decision 0063, amended).
    const paidAt = notices[0]?.payTime ?? '';
    expect(paidAt).toMatch(/^\d{14}$/);
    expect(notices).toEqual([
      { status: 'PAID', delivery: 'delivered', payTime: paidAt },
      { status: 'REVERSED', delivery: 'delivered', payTime: paidAt },
    ]);

    // The loan took the repayment back through its workflow: reversed, the instalment due and overdue again.
    const reversed = await loanWhen(
      loan.loanId,
      (read) => repaymentsOf(read)[0]?.reversed === true && read.status === 'Past Due',
      'the repayment reversed, the loan Past Due',
    );
    const [repayment] = repaymentsOf(reversed);
    expect(repayment).toMatchObject({
      id: `rpm_${submissionId.slice(4)}`,
      amount: overdue,
      reference: invoice,
      reversed: true,
    });
    expect(Date.parse(repayment?.reversedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(reversed.servicing?.instalments[0]).toMatchObject({
      outstanding: firstInstalment?.total,
      paid: '0.00',
      overdue: true,
    });
    expect(reversed.servicing?.paidTotal).toBe('0.00');
    expect(await repaymentAmounts(loan.loanId)).toMatchObject({ overdue, status: 'Past Due' });
    const history = await comments(loan.loanId);
    expect(history.at(-1)).toContain(
      `repayment rpm_${submissionId.slice(4)} of ${overdue} EUR on ${repayment?.date} (Regular payment) reversed: the bank took the transfer back (invoice ${invoice}, IDN ${idn})`,
    );
    expect(history.at(-1)).toContain('past due since');
    expect(await submitTransfer(loan.loanId, overdue, 'reversed-e2e')).toMatchObject({
      submissionId,
      status: 'reversed',
      reason: `the bank took the transfer back: repayment rpm_${submissionId.slice(4)} reversed`,
    });

    // The gateway delivers at least once: the same REVERSED again is OK and changes nothing (also in the
    // form of notifications sent before it carried PAY_TIME).
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED:PAY_TIME=${paidAt}`)).toBe(
      `INVOICE=${invoice}:STATUS=OK\n`,
    );
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED`)).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    await pause(QUIET_MS);
    expect(await comments(loan.loanId)).toHaveLength(history.length);
    expect(repaymentsOf(await loanOf(platform, tenant, loan.loanId))).toHaveLength(1);

    // Day 3: the customer pays the slip again: the gateway's next round, booked as a new repayment.
    expect(await importStatement([transfer(idn, overdue)])).toMatchObject({ settled: 1 });
    const repaid = await loanWhen(
      loan.loanId,
      (read) => repaymentsOf(read).length === 2 && read.status === 'Active',
      'the repayment booked again, the loan Active',
    );
    expect(repaymentsOf(repaid)[1]).toMatchObject({
      id: `rpm_${submissionId.slice(4)}-2`,
      amount: overdue,
      reference: `${invoice}#2`,
      reversed: false,
      reversedAt: null,
    });
    expect(repaid.servicing?.instalments[0]).toMatchObject({ outstanding: '0.00' });
    expect(await submitTransfer(loan.loanId, overdue, 'reversed-e2e')).toMatchObject({
      status: 'paid',
      repaymentId: `rpm_${submissionId.slice(4)}-2`,
    });
    // The first payment's PAID delivered again (its own PAY_TIME) books nothing.
    const [first] = await platform.db
      .select({ payTime: collectNotifications.payTime })
      .from(collectNotifications)
      .where(
        and(
          eq(collectNotifications.invoice, invoice),
          eq(collectNotifications.status, 'PAID'),
          eq(collectNotifications.round, 0),
        ),
      );
    const before = (await comments(loan.loanId)).length;
    expect(
      await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=${first?.payTime}:STAN=000001:BCODE=000001`),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    await pause(QUIET_MS);
    expect(repaymentsOf(await loanOf(platform, tenant, loan.loanId))).toHaveLength(2);
    expect(await comments(loan.loanId)).toHaveLength(before);
  }, 150_000);

  it('a Repaid loan whose repayment is taken back is Active again, owing it', async () => {
    const loan = await disbursedLoan(10);
    const { payOff } = await repaymentAmounts(loan.loanId);
    const { invoice } = await submitTransfer(loan.loanId, payOff, 'pay-off');
    expect(
      await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270715120000:STAN=000002:BCODE=000002`),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    await loanWhen(loan.loanId, (read) => read.status === 'Repaid', 'the loan Repaid');

    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED`)).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    const active = await loanWhen(
      loan.loanId,
      (read) => read.status === 'Active' && repaymentsOf(read)[0]?.reversed === true,
      'the loan Active again, its repayment reversed',
    );
    expect(active.servicing).toMatchObject({ status: 'current', payoffAmount: payOff, paidTotal: '0.00' });
    expect(repaymentsOf(active)).toEqual([expect.objectContaining({ reference: invoice, reversed: true })]);
    expect((await comments(loan.loanId)).at(-1)).toContain(
      `a corrected repayment leaves ${payOff} EUR owing`,
    );
    // Its workflow runs on: the loan is serviced as before.
    const described = await platform.client.workflow
      .getHandle(loanWorkflowId(tenant.tenantId, loan.loanId))
      .describe();
    expect(described.status.name).toBe('RUNNING');
  }, 60_000);

  it('a REVERSED naming a payment the loan never booked takes nothing back and does not swallow the next genuine PAID', async () => {
    const loan = await disbursedLoan(10);
    const { invoice, submissionId } = await submitTransfer(loan.loanId, '50.00', 'reversed-unbooked');
    const reversedFirst = 'PAY_TIME=20270715120000';
    // The bank took back a payment whose PAID never reached the loan (it ended `failed` at the gateway).
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED:${reversedFirst}`)).toBe(
      `INVOICE=${invoice}:STATUS=OK\n`,
    );
    await eventually(async () =>
      (await comments(loan.loanId)).at(-1)?.includes('a payment of it that the loan had not booked')
        ? true
        : undefined,
    );
    expect((await comments(loan.loanId)).at(-1)).toContain('PAY_TIME 20270715120000');
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-unbooked')).toMatchObject({
      status: 'pending',
    });
    expect(repaymentsOf(await loanOf(platform, tenant, loan.loanId))).toEqual([]);

    // The next genuine payment of the slip (another PAY_TIME): booked, as the slip's first repayment.
    expect(
      await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270716120000:STAN=000006:BCODE=000006`),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    const booked = await loanWhen(
      loan.loanId,
      (read) => repaymentsOf(read).length === 1,
      'the payment booked',
    );
    expect(repaymentsOf(booked)).toEqual([
      expect.objectContaining({
        id: `rpm_${submissionId.slice(4)}`,
        amount: '50.00',
        reference: invoice,
        reversed: false,
      }),
    ]);
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-unbooked')).toMatchObject({
      status: 'paid',
      repaymentId: `rpm_${submissionId.slice(4)}`,
    });
    const before = (await comments(loan.loanId)).length;

    // The PAID of the payment taken back, delivered late, books nothing; its REVERSED again changes
    // nothing; neither does a REVERSED of another payment the loan never booked: the repayment in force stays.
    expect(
      await notify(
        `INVOICE=${invoice}:STATUS=PAID:${reversedFirst}:STAN=000007:BCODE=000007`,
        `INVOICE=${invoice}:STATUS=REVERSED:${reversedFirst}`,
      ),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\nINVOICE=${invoice}:STATUS=OK\n`);
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED:PAY_TIME=20270714090000`)).toBe(
      `INVOICE=${invoice}:STATUS=OK\n`,
    );
    await eventually(async () => ((await comments(loan.loanId)).length > before ? true : undefined));
    await pause(QUIET_MS);
    expect((await comments(loan.loanId)).slice(before)).toEqual([
      expect.stringContaining('had not booked (invoice'),
    ]);
    expect((await comments(loan.loanId)).at(-1)).toContain('PAY_TIME 20270714090000');
    const unchanged = await loanOf(platform, tenant, loan.loanId);
    expect(repaymentsOf(unchanged)).toEqual([expect.objectContaining({ reversed: false })]);
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-unbooked')).toMatchObject({ status: 'paid' });

    // The REVERSED of the payment booked (its PAY_TIME): that repayment is taken back.
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED:PAY_TIME=20270716120000`)).toBe(
      `INVOICE=${invoice}:STATUS=OK\n`,
    );
    await loanWhen(
      loan.loanId,
      (read) => repaymentsOf(read)[0]?.reversed === true,
      'the booked repayment reversed',
    );
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-unbooked')).toMatchObject({
      status: 'reversed',
      reason: `the bank took the transfer back: repayment rpm_${submissionId.slice(4)} reversed`,
    });
  }, 60_000);

  it('a REVERSED without PAY_TIME (sent before the gateway carried it) before its PAID: nothing booked, the slip stays payable; that PAID is not booked; another payment is', async () => {
    const loan = await disbursedLoan(10);
    const { invoice, submissionId } = await submitTransfer(loan.loanId, '50.00', 'reversed-first');
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED`)).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    await eventually(async () =>
      (await comments(loan.loanId)).at(-1)?.includes('before its payment reached the loan')
        ? true
        : undefined,
    );
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-first')).toMatchObject({ status: 'pending' });
    expect(repaymentsOf(await loanOf(platform, tenant, loan.loanId))).toEqual([]);

    // The PAID it took back, delivered late: on record as taken back, nothing booked.
    expect(
      await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270715120000:STAN=000003:BCODE=000003`),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    await eventually(async () =>
      (await comments(loan.loanId)).at(-1)?.includes('already taken back by the bank: nothing booked')
        ? true
        : undefined,
    );
    expect(await submitTransfer(loan.loanId, '50.00', 'reversed-first')).toMatchObject({
      status: 'reversed',
    });
    expect(repaymentsOf(await loanOf(platform, tenant, loan.loanId))).toEqual([]);

    // The slip paid again (another payment, another PAY_TIME): booked.
    expect(
      await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270716120000:STAN=000004:BCODE=000004`),
    ).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    const booked = await loanWhen(
      loan.loanId,
      (read) => repaymentsOf(read).length === 1,
      'the payment booked',
    );
    expect(repaymentsOf(booked)[0]).toMatchObject({
      id: `rpm_${submissionId.slice(4)}-2`,
      amount: '50.00',
      reference: `${invoice}#2`,
      reversed: false,
    });
  }, 60_000);

  it('an unknown invoice is NO; a loan whose workflow has ended: OK, on record for an operator, once', async () => {
    expect(await notify('INVOICE=LR-sub_00000000000000ee:STATUS=REVERSED')).toBe(
      'INVOICE=LR-sub_00000000000000ee:STATUS=NO\n',
    );

    const loan = await disbursedLoan(10);
    const { payOff } = await repaymentAmounts(loan.loanId);
    const { invoice, submissionId } = await submitTransfer(loan.loanId, payOff, 'ended');
    await notify(`INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270715120000:STAN=000005:BCODE=000005`);
    await loanWhen(loan.loanId, (read) => read.status === 'Repaid', 'the loan Repaid');
    // The reversal window over: the workflow has ended (here: ended by the operator).
    await platform.client.workflow
      .getHandle(loanWorkflowId(tenant.tenantId, loan.loanId))
      .terminate('the reversal window is over');
    const before = (await historyOf(platform, tenant, loan.loanId)).length;

    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED`)).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    const after = await historyOf(platform, tenant, loan.loanId);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ status: 'Repaid', actorRole: 'system' });
    expect(after.at(-1)?.comments).toContain(
      `the bank took back the transfer of ${payOff} EUR for invoice ${invoice}`,
    );
    expect(after.at(-1)?.comments).toContain(
      `repayment rpm_${submissionId.slice(4)} stays booked (loan Repaid): an operator must settle it`,
    );
    const [row] = await platform.db
      .select({ status: lendingRepaymentSubmissions.status, reason: lendingRepaymentSubmissions.reason })
      .from(lendingRepaymentSubmissions)
      .where(eq(lendingRepaymentSubmissions.submissionId, submissionId));
    expect(row?.status).toBe('reversed');
    // The loan is left as it was.
    const read = await loanOf(platform, tenant, loan.loanId);
    expect(read.status).toBe('Repaid');
    expect(repaymentsOf(read)[0]?.reversed).toBe(false);

    // Again: OK, nothing more on record.
    expect(await notify(`INVOICE=${invoice}:STATUS=REVERSED`)).toBe(`INVOICE=${invoice}:STATUS=OK\n`);
    expect(await historyOf(platform, tenant, loan.loanId)).toHaveLength(before + 1);
  }, 60_000);
});
