import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, type LendingTestTenant, lendingCall, registerCustomer } from './support.ts';

/**
 * Servicing over HTTP (decision 0043): loans created by management with a disbursement in the past (due
 * dates already passed), Management/Loans/Repayments with its allocation, edit and reversal,
 * PaymentOptions/RepaymentAmounts for the customer, and the refusals.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
let customer: Awaited<ReturnType<typeof registerCustomer>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  customer = await registerCustomer(platform, tenant);
});
afterAll(async () => {
  await platform?.stop();
});

type Repayment = {
  id: string;
  amount: string;
  date: string;
  mode: string;
  reference: string | null;
  reversed: boolean;
};
type RepaymentAnswer = { repayment: Repayment; loan: LoanView };

const today = () => new Date().toISOString().slice(0, 10);
const asManagement = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });

async function disbursedLoan(daysAgo: number, body: Record<string, unknown> = {}): Promise<LoanView> {
  const created = await asManagement('POST', '/Management/Loans', {
    body: {
      customerId: customer.customerId,
      productName: 'Personal 12',
      amount: '1200.00',
      term: 12,
      disbursements: [{ amount: '1200.00', date: addDays(today(), -daysAgo) }],
      ...body,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
const repay = (loanId: string, body: Record<string, unknown>) =>
  asManagement<RepaymentAnswer>('POST', '/Management/Loans/Repayments', { body: { loanId, ...body } });

describe('servicing over HTTP', () => {
  it('Past Due with days past due; paying the overdue amount → Active; reversing it → Past Due again', async () => {
    const loan = await disbursedLoan(75);
    expect(loan.status).toBe('Past Due');
    const servicing = loan.servicing;
    expect(servicing?.pastDueSince).toBe(servicing?.instalments[0]?.dueDate);
    expect(servicing?.daysPastDue).toBeGreaterThanOrEqual(40);
    const paid = await repay(loan.loanId, { amount: servicing?.overdueAmount });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.repayment.mode).toBe('Regular payment');
    expect(paid.body.loan.status).toBe('Active');
    expect(paid.body.loan.servicing?.daysPastDue).toBe(0);
    const history = paid.body.loan.statusHistory.map((entry) => entry.status);
    expect(history.at(-1)).toBe('Active');

    const reversed = await asManagement<RepaymentAnswer>(
      'DELETE',
      `/Management/Loans/Repayments/${paid.body.repayment.id}`,
    );
    expect(reversed.status, JSON.stringify(reversed.body)).toBe(200);
    expect(reversed.body.repayment.reversed).toBe(true);
    expect(reversed.body.loan.status).toBe('Past Due');
    const read = await asManagement('GET', `/Management/Loans/${loan.loanId}`);
    expect(read.body.status).toBe('Past Due');
    expect(read.body.servicing?.repayments).toHaveLength(1);
  });

  it('edit recomputes the allocation; pay-off → Repaid; a reversal brings a Repaid loan back; idempotent reference', async () => {
    const loan = await disbursedLoan(10);
    expect(loan.status).toBe('Active');
    const first = await repay(loan.loanId, { amount: '5.00', reference: 'stmt-7' });
    expect(first.status).toBe(201);
    // 5.00 pays the first instalment's interest (12.00) in part: principal untouched.
    expect(first.body.loan.servicing?.outstandingPrincipal).toBe('1200.00');
    const replay = await repay(loan.loanId, { amount: '5.00', reference: 'stmt-7' });
    expect(replay.status).toBe(200);
    expect(replay.body.repayment.id).toBe(first.body.repayment.id);
    // The reference is bound to its request: another amount, mode or date under it is refused (422).
    for (const other of [
      { amount: '6.00' },
      { amount: '5.00', mode: 'Early repayment' },
      { amount: '5.00', date: addDays(today(), -1) },
    ]) {
      const reused = await repay(loan.loanId, { ...other, reference: 'stmt-7' });
      expect(reused.status, JSON.stringify(other)).toBe(422);
      expect(reused.body).toMatchObject({
        error: { code: 'idempotency_key_reused', fields: [{ field: 'reference' }] },
      });
    }
    expect((await repay(loan.loanId, { amount: '5', reference: 'stmt-7', date: today() })).status).toBe(200);

    const edited = await asManagement<RepaymentAnswer>(
      'PUT',
      `/Management/Loans/Repayments/${first.body.repayment.id}`,
      {
        body: { amount: '20.00' },
      },
    );
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.loan.servicing?.outstandingPrincipal).toBe('1192.00');
    expect(edited.body.loan.servicing?.instalments[0]?.paid).toBe('20.00');

    const payoff = edited.body.loan.servicing?.payoffAmount as string;
    const tooMuch = await repay(loan.loanId, { amount: (Number(payoff) + 1).toFixed(2) });
    expect(tooMuch.status).toBe(400);
    expect((tooMuch.body as unknown as { error: { code: string } }).error.code).toBe(
      'repayment_exceeds_balance',
    );

    const all = await repay(loan.loanId, { amount: payoff });
    expect(all.body.loan.status).toBe('Repaid');
    const closed = await repay(loan.loanId, { amount: '1.00' });
    expect(closed.status).toBe(409);
    const back = await asManagement<RepaymentAnswer>(
      'DELETE',
      `/Management/Loans/Repayments/${all.body.repayment.id}`,
    );
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.loan.status).toBe('Active');
  });

  it('an amount with more decimals than the loan’s currency has is refused (400 naming amount), not rounded', async () => {
    await createCreditProduct(platform, tenant.tenantId, {
      name: 'Yen 12',
      currency: 'JPY',
      amount: { min: '50000', max: '2000000' },
    });
    const start = addDays(today(), -10);
    const loan = await disbursedLoan(10, {
      productName: 'Yen 12',
      amount: '120000',
      disbursements: [{ amount: '120000', date: start }],
    });
    const fraction = await repay(loan.loanId, { amount: '100.50' });
    expect(fraction.status).toBe(400);
    expect(fraction.body).toMatchObject({ error: { fields: [{ field: 'amount' }] } });
    expect((await repay(loan.loanId, { amount: '100' })).status).toBe(201);
  });

  it('a loan created with a repaid amount books it as an opening repayment', async () => {
    const loan = await disbursedLoan(75, { repaidAmount: '1000' });
    expect(loan.status).toBe('Active');
    expect(loan.servicing?.repayments).toEqual([
      expect.objectContaining({ id: `${loan.loanId}-opening`, amount: '1000.00', mode: 'Regular payment' }),
    ]);
  });

  it('RepaymentAmounts: the customer’s amounts due now, overdue and to pay off; another’s loan is 404', async () => {
    const loan = await disbursedLoan(40);
    const amounts = await lendingCall<Record<string, unknown>>(
      platform,
      'GET',
      `/PaymentOptions/RepaymentAmounts/${loan.loanId}`,
      {
        key: tenant.keys.paymentOptions,
        token: customer.token,
      },
    );
    expect(amounts.status, JSON.stringify(amounts.body)).toBe(200);
    expect(amounts.body).toMatchObject({
      loanId: loan.loanId,
      status: 'Past Due',
      overdue: loan.servicing?.overdueAmount,
      payOff: loan.servicing?.payoffAmount,
    });
    const other = await registerCustomer(platform, tenant);
    const theirs = await lendingCall(platform, 'GET', `/PaymentOptions/RepaymentAmounts/${loan.loanId}`, {
      key: tenant.keys.paymentOptions,
      token: other.token,
    });
    expect(theirs.status).toBe(404);
  });

  it('wrong status and bad input are refused', async () => {
    const application = await asManagement('POST', '/Management/Loans', {
      body: { customerId: customer.customerId, productName: 'Personal 12', amount: '1200', term: 12 },
    });
    const refused = await repay(application.body.loanId, { amount: '10.00' });
    expect(refused.status).toBe(409);
    expect((refused.body as unknown as { error: { code: string; message: string } }).error.message).toContain(
      `status ${application.body.status}`,
    );
    const amounts = await lendingCall(
      platform,
      'GET',
      `/PaymentOptions/RepaymentAmounts/${application.body.loanId}`,
      {
        key: tenant.keys.paymentOptions,
        token: customer.token,
      },
    );
    expect(amounts.status).toBe(409);
    const loan = await disbursedLoan(10);
    const future = await repay(loan.loanId, { amount: '10.00', date: addDays(today(), 2) });
    expect(future.status).toBe(400);
    const badMode = await repay(loan.loanId, { amount: '10.00', mode: 'Whatever' });
    expect(badMode.status).toBe(400);
    const unknown = await asManagement('DELETE', '/Management/Loans/Repayments/rpm_nope');
    expect(unknown.status).toBe(404);
    const frontOffice = await lendingCall(platform, 'POST', '/Management/Loans/Repayments', {
      key: tenant.keys.frontOffice,
      body: { loanId: loan.loanId, amount: '10.00' },
    });
    expect(frontOffice.status).toBe(403);
  });
});
