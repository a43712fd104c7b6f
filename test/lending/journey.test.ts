import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { payDateOf } from '../../domain/lending/disbursement.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { type Desk, newOperator, openDesk } from '../collect/desk-client.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  activeLoan,
  type CollectMerchant,
  issued,
  loanOf,
  makeMerchant,
  notified,
  RECIPIENT,
} from './disbursement-support.ts';
import { signLoanDocuments } from './documents-support.ts';
import { createCreditProduct, startDateForFirstDueDate } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  decidedLoan,
  historyOf,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * A loan's whole life over HTTP, as a lender's site, its back office and a cash desk drive it: a customer
 * registers and completes the details, applies, is decided by the sandbox credit bureau (which approves
 * every last name but its test names: sandbox/lending/bureau.ts), accepts the offer, signs the documents
 * with the codes the sandbox SMS carrier received, is approved; the loan is paid out as a cash payout of
 * the collection gateway and collected at a desk (or the payout expires and is issued again), then
 * serviced: repayments through Management/Loans/Repayments until Repaid.
 *
 * A loan paid out today has its first instalment due a month later (never on the start day), so no test
 * can see one paid out at the desk fall overdue. The Past Due leg therefore registers the disbursement
 * through Management/Loans/Disbursements dated so that the first instalment fell due yesterday, and
 * LENDING_GRACE_PERIOD ends that day's grace DUE_IN_MS after this file starts (decision 0043): the loan is
 * Active when paid out, then Past Due by its own timer within the test.
 */

const ADMIN_TOKEN = 'admin-token-for-the-journey-tests-0123456789';
/** Payouts expire this long after registration: time enough to collect one at once, short for the expiry. */
const PAYOUT_EXPIRY_MS = 8_000;
/** The Past Due leg's moment, after this file starts: time to start the platform and reach Approved. */
const DUE_IN_MS = 75_000;

const utcToday = () => new Date().toISOString().slice(0, 10);
const today = utcToday();
const yesterday = addDays(today, -1);
const dueMoment = Date.now() + DUE_IN_MS;
const graceMs = dueMoment - Date.parse(`${today}T00:00:00Z`);
const TERMS = { productName: 'Personal 12', amount: '3000.00', term: 12 } as const;

let platform: TestPlatform;
let tenant: LendingTestTenant;
let merchant: CollectMerchant;
let desk: Desk;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      ADMIN_TOKEN,
      COLLECT_PAYOUT_EXPIRY: `${PAYOUT_EXPIRY_MS}ms`,
      LENDING_GRACE_PERIOD: `${graceMs}ms`,
    },
  });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  merchant = await makeMerchant(platform, tenant, ADMIN_TOKEN);
  desk = await openDesk(platform, await newOperator(platform));
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;
type Repayment = { id: string; amount: string; mode: string; reversed: boolean };
type RepaymentAmounts = {
  loanId: string;
  status: string;
  currency: string;
  overdue: string;
  dueNow: string;
  nextDueDate: string | null;
  nextInstalment: string | null;
  payOff: string;
  daysPastDue: number;
};

const asCustomer = <T = LoanView>(customer: Customer, method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.frontOffice, token: customer.token, ...request });
const asManagement = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });
const repaymentAmounts = (customer: Customer, loanId: string) =>
  lendingCall<RepaymentAmounts>(platform, 'GET', `/PaymentOptions/RepaymentAmounts/${loanId}`, {
    key: tenant.keys.paymentOptions,
    token: customer.token,
  });
async function repay(loanId: string, amount: string) {
  const paid = await asManagement<{ repayment: Repayment; loan: LoanView }>(
    'POST',
    '/Management/Loans/Repayments',
    { body: { loanId, amount } },
  );
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  expect(paid.body.repayment).toMatchObject({ amount, mode: 'Regular payment', reversed: false });
  return paid.body.loan;
}
const cents = (amount: string | null | undefined) => Math.round(Number(amount) * 100);
const euros = (minor: number) => (minor / 100).toFixed(2);
/** The status history without repeats: the path the loan took. */
const pathOf = (loan: LoanView) =>
  loan.statusHistory
    .map((entry) => entry.status)
    .filter((status, index, all) => index === 0 || all[index - 1] !== status);

/**
 * Registration to Approved as the customer and the back office do it: Register (user token), the details
 * completed, Loans/Create, Process (the bureau approves), the offer accepted, the documents signed with
 * the SMS codes, Management Approve.
 */
async function approvedJourney(): Promise<{ customer: Customer; loanId: string }> {
  const customer = await registerCustomer(platform, tenant);
  const bare = await asCustomer<{ detailsComplete: boolean }>(customer, 'GET', '/Customer/Details');
  expect(bare.body.detailsComplete).toBe(false);
  const details = await asCustomer<{ detailsComplete: boolean; missingDetails: string[] }>(
    customer,
    'PUT',
    '/Customer/Details',
    { body: completeDetails() },
  );
  expect(details.status, JSON.stringify(details.body)).toBe(200);
  expect(details.body).toMatchObject({ detailsComplete: true, missingDetails: [] });

  const created = await asCustomer(customer, 'POST', '/Customer/Loans/Create', { body: TERMS });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ status: 'Origination', amount: '3000.00', term: 12, secured: false });
  const { loanId } = created.body;

  // Process answers at once; the customer polls the loan for the bureau's decision.
  const processed = await decidedLoan(
    await asCustomer(customer, 'POST', `/Customer/Loans/${loanId}/Process`),
    () => asCustomer(customer, 'GET', `/Customer/Loans/${loanId}`),
  );
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  expect(processed.body.status).toBe('Offer confirmation');
  expect(processed.body.offers).toEqual([{ offerId: `${loanId}-1`, ...TERMS }]);
  // The bureau's answer is the back office's to see, not the customer's.
  expect(processed.body.decision).toBeNull();
  expect((await asManagement('GET', `/Management/Loans/${loanId}`)).body.decision).toMatchObject({
    outcome: 'approve',
    score: 760,
  });

  const accepted = await asCustomer(customer, 'POST', `/Customer/Loans/${loanId}/AcceptLoanOffer`, {
    query: { offerId: `${loanId}-1` },
  });
  expect(accepted.body).toMatchObject({ status: 'Waiting for approval', acceptedOfferId: `${loanId}-1` });
  // Not before the customer has signed.
  const early = await asManagement('POST', `/Management/Loans/${loanId}/Approve`);
  expect(early.status).toBe(409);
  expect(early.body.error?.code).toBe('documents_not_signed');

  await signLoanDocuments(platform, tenant, customer.token, loanId);
  const approved = await asManagement('POST', `/Management/Loans/${loanId}/Approve`, {
    query: { comments: 'documents signed' },
  });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  expect(approved.body.status).toBe('Approved');
  // Nothing to repay before the money is paid out.
  const amounts = await repaymentAmounts(customer, loanId);
  expect(amounts.status).toBe(409);
  expect(amounts.body.error?.code).toBe('invalid_loan_status');
  return { customer, loanId };
}

/** The payout collected at the desk by the customer: the loan Active, paid out today, notified once. */
async function collectedAtTheDesk(loanId: string, payout: { idn: string; invoice: string }) {
  const lookedUp = await desk.lookUp(payout.idn);
  expect(lookedUp.body).toMatchObject({ kind: 'payout_office', status: 'PENDING', action: 'payout' });
  const paid = await desk.payOut(payout.idn, RECIPIENT);
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  const active = await activeLoan(platform, tenant, loanId);
  // Dated by the UTC day it was collected on (PAY_TIME is Sofia time, up to 3 hours ahead).
  expect(active.disbursement).toEqual({ amount: '3000.00', date: utcToday() });
  const notification = await notified(platform, merchant, payout.invoice, 'PAID');
  expect(notification).toMatchObject({ delivery: 'delivered', attemptCount: 1 });
  return active;
}

describe('a loan from registration to Repaid over HTTP', () => {
  // First in the file: it must be paid out before its due moment (DUE_IN_MS after the file starts).
  it('an instalment left unpaid: Past Due with days past due, repaid back to Active, paid off → Repaid', async () => {
    const { customer, loanId } = await approvedJourney();
    const startDate = startDateForFirstDueDate(yesterday, TERMS);
    expect(Date.now(), 'reached Approved after the due moment: raise DUE_IN_MS').toBeLessThan(
      dueMoment - 5_000,
    );
    const disbursed = await asManagement('POST', '/Management/Loans/Disbursements', {
      body: { loanId, amount: '3000.00', date: startDate },
    });
    expect(disbursed.status, JSON.stringify(disbursed.body)).toBe(200);
    // Due yesterday, but still in its grace: Active, and the instalment is due now, not overdue.
    expect(disbursed.body.status).toBe('Active');
    const first = disbursed.body.servicing?.instalments[0];
    expect(first).toMatchObject({ number: 1, dueDate: yesterday, paid: '0.00', overdue: false });
    const inGrace = await repaymentAmounts(customer, loanId);
    expect(inGrace.body).toMatchObject({
      status: 'Active',
      overdue: '0.00',
      dueNow: first?.total,
      daysPastDue: 0,
    });

    // The grace ends: the workflow's timer makes the loan Past Due, with no request.
    const pastDue = await eventually(
      async () => {
        const loan = await loanOf(platform, tenant, loanId);
        return loan.status === 'Past Due' ? loan : undefined;
      },
      Math.max(0, dueMoment - Date.now()) + 30_000,
      'the loan to be Past Due',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(dueMoment);
    const daysPastDue = Math.round((Date.parse(utcToday()) - Date.parse(yesterday)) / 86_400_000);
    expect(pastDue.servicing).toMatchObject({
      status: 'overdue',
      pastDueSince: yesterday,
      daysPastDue,
      overdueAmount: first?.total,
    });
    expect(pastDue.statusHistory.at(-1)).toMatchObject({ status: 'Past Due', by: 'system' });
    expect(pastDue.statusHistory.at(-1)?.comments).toContain(`past due since ${yesterday}`);
    const overdue = await repaymentAmounts(customer, loanId);
    expect(overdue.status).toBe(200);
    expect(overdue.body).toMatchObject({
      loanId,
      status: 'Past Due',
      currency: 'EUR',
      overdue: first?.total,
      payOff: pastDue.servicing?.payoffAmount,
      daysPastDue,
    });
    expect((await asCustomer(customer, 'GET', `/Customer/Loans/${loanId}`)).body.status).toBe('Past Due');

    // Part of the overdue amount: still Past Due, less overdue; the rest: Active again.
    const part = euros(Math.floor(cents(first?.total) / 2));
    const rest = euros(cents(first?.total) - cents(part));
    const partly = await repay(loanId, part);
    expect(partly.status).toBe('Past Due');
    expect(partly.servicing?.overdueAmount).toBe(rest);
    const current = await repay(loanId, rest);
    expect(current.status).toBe('Active');
    expect(current.servicing).toMatchObject({ status: 'current', overdueAmount: '0.00', daysPastDue: 0 });
    expect(current.servicing?.instalments[0]).toMatchObject({ paid: first?.total, outstanding: '0.00' });
    expect(current.statusHistory.at(-1)?.comments).toContain('every overdue instalment is paid');
    const back = await repaymentAmounts(customer, loanId);
    expect(back.body).toMatchObject({ status: 'Active', overdue: '0.00', daysPastDue: 0 });
    expect(back.body.nextDueDate).toBe(current.servicing?.instalments[1]?.dueDate);

    const repaid = await repay(loanId, current.servicing?.payoffAmount as string);
    expect(repaid.status).toBe('Repaid');
    expect(repaid.servicing).toMatchObject({ status: 'repaid', payoffAmount: '0.00' });
    expect(pathOf(repaid)).toEqual([
      'Origination',
      'Offer confirmation',
      'Waiting for approval',
      'Approved',
      'Active',
      'Past Due',
      'Active',
      'Repaid',
    ]);
    // Moved to Past Due once (the partial repayment is recorded in Past Due too, without a move).
    const moves = (await historyOf(platform, tenant, loanId)).filter((entry) =>
      entry.comments?.startsWith('past due since'),
    );
    expect(moves).toHaveLength(1);
  }, 180_000);

  it('paid out at a cash desk, repaid instalment by instalment ahead, paid off → Repaid', async () => {
    const { customer, loanId } = await approvedJourney();
    const payout = await issued(platform, tenant, loanId);
    const active = await collectedAtTheDesk(loanId, payout);

    // The schedule is fixed from the day of the payout: the calculator's for the same terms and day.
    const calculated = await lendingCall<{
      instalments: Record<string, unknown>[];
      totals: { payable: string };
    }>(platform, 'POST', '/Customer/Loans/Calculate', {
      key: tenant.keys.frontOffice,
      body: { ...TERMS, startDate: active.disbursement?.date },
    });
    expect(calculated.status).toBe(200);
    const servicing = active.servicing;
    expect(servicing?.instalments).toHaveLength(12);
    for (const [index, instalment] of (servicing?.instalments ?? []).entries()) {
      const { remainingBalance: _balance, ...due } = calculated.body.instalments[index] ?? {};
      expect(instalment).toMatchObject({ ...due, paid: '0.00', overdue: false });
    }
    expect(servicing).toMatchObject({
      status: 'current',
      overdueAmount: '0.00',
      daysPastDue: 0,
      outstandingPrincipal: '3000.00',
      payoffAmount: calculated.body.totals.payable,
      nextDueDate: servicing?.instalments[0]?.dueDate,
    });
    expect((servicing?.instalments[0]?.dueDate ?? '') > utcToday()).toBe(true);
    const amounts = await repaymentAmounts(customer, loanId);
    expect(amounts.body).toEqual({
      loanId,
      status: 'Active',
      currency: 'EUR',
      overdue: '0.00',
      dueNow: '0.00',
      nextDueDate: servicing?.instalments[0]?.dueDate,
      nextInstalment: servicing?.instalments[0]?.total,
      payOff: calculated.body.totals.payable,
      daysPastDue: 0,
    });

    // The first instalment paid ahead of its date: its interest then principal; the next one is next.
    const [first, second] = servicing?.instalments ?? [];
    const afterFirst = await repay(loanId, first?.total as string);
    expect(afterFirst.status).toBe('Active');
    expect(afterFirst.servicing?.instalments[0]).toMatchObject({ paid: first?.total, outstanding: '0.00' });
    expect(afterFirst.servicing?.outstandingPrincipal).toBe(euros(300_000 - cents(first?.principal)));
    expect(afterFirst.servicing?.payoffAmount).toBe(
      euros(cents(calculated.body.totals.payable) - cents(first?.total)),
    );
    const next = await repaymentAmounts(customer, loanId);
    expect(next.body).toMatchObject({ nextDueDate: second?.dueDate, nextInstalment: second?.total });

    const repaid = await repay(loanId, afterFirst.servicing?.payoffAmount as string);
    expect(repaid.status).toBe('Repaid');
    expect(repaid.servicing).toMatchObject({
      status: 'repaid',
      payoffAmount: '0.00',
      outstandingPrincipal: '0.00',
    });
    expect(repaid.servicing?.paidTotal).toBe(calculated.body.totals.payable);
    expect(pathOf(repaid)).toEqual([
      'Origination',
      'Offer confirmation',
      'Waiting for approval',
      'Approved',
      'Active',
      'Repaid',
    ]);
    expect(repaid.statusHistory.at(-1)).toMatchObject({ by: 'management' });
    expect(repaid.statusHistory.at(-1)?.comments).toContain('the whole schedule is repaid');

    // Closed: nothing more to pay, and the customer's summary counts it closed.
    const more = await asManagement('POST', '/Management/Loans/Repayments', {
      body: { loanId, amount: '1.00' },
    });
    expect(more.status).toBe(409);
    expect(more.body.error?.message).toContain('status Repaid');
    const summary = await asCustomer<Record<string, unknown>>(customer, 'GET', '/Customer/AccountSummary');
    expect(summary.body).toMatchObject({ openLoans: 0, closedLoans: 1 });
  }, 120_000);

  it('the payout expires: back to Approved with the reason, issued again, collected → Active', async () => {
    const { customer, loanId } = await approvedJourney();
    const first = await issued(platform, tenant, loanId);
    const expired = await notified(platform, merchant, first.invoice, 'EXPIRED');
    expect(expired).toMatchObject({ delivery: 'delivered', attemptCount: 1 });

    const waiting = await loanOf(platform, tenant, loanId);
    expect(waiting).toMatchObject({ status: 'Approved', disbursement: null, servicing: null });
    expect(waiting.statusHistory.at(-1)).toMatchObject({ status: 'Approved', by: 'system' });
    expect(waiting.statusHistory.at(-1)?.comments).toContain('expired uncollected');
    expect(waiting.statusHistory.at(-1)?.comments).toContain(first.invoice);
    expect((await desk.payOut(first.idn, RECIPIENT)).body.error?.code).toBe('expired');
    expect((await repaymentAmounts(customer, loanId)).status).toBe(409);

    const second = await issued(platform, tenant, loanId, 2);
    expect(second.idn).not.toBe(first.idn);
    const active = await collectedAtTheDesk(loanId, second);
    expect(active.servicing).toMatchObject({ status: 'current', outstandingPrincipal: '3000.00' });
    expect((await repaymentAmounts(customer, loanId)).body).toMatchObject({
      status: 'Active',
      overdue: '0.00',
    });
    expect(pathOf(active)).toEqual([
      'Origination',
      'Offer confirmation',
      'Waiting for approval',
      'Approved',
      'Active',
    ]);
    const history = await historyOf(platform, tenant, loanId);
    expect(history.filter((entry) => entry.comments?.includes('expired uncollected'))).toHaveLength(1);
    expect(history.filter((entry) => entry.status === 'Active')).toHaveLength(1);
  }, 120_000);
});

describe('the day a payout was collected', () => {
  it('is the UTC day: PAY_TIME is Sofia time, two or three hours ahead', () => {
    // Found by the journey at 23:30 UTC: the loan was dated the next day.
    expect(payDateOf('20261125013000')).toBe('2026-11-24');
    expect(payDateOf('20261125020000')).toBe('2026-11-25');
    expect(payDateOf('20260701025959')).toBe('2026-06-30');
    expect(payDateOf('20270315101500')).toBe('2027-03-15');
    expect(payDateOf('2027031510')).toBeUndefined();
  });
});
