import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { creditProductSchema } from '../../domain/lending/credit-products.ts';
import { calculateSchedule } from '../../domain/lending/schedule.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { createCreditProduct, TEST_CREDIT_PRODUCT } from './products-support.ts';
import {
  createLendingTenant,
  historyOf,
  type LendingTestTenant,
  lendingCall,
  loanAtRest,
  registerCustomer,
} from './support.ts';

/**
 * A due date passing while no worker runs (decision 0043): the worker runs as its own OS process and is
 * killed with SIGKILL while an Active loan sleeps on its due-date timer; the timer's moment passes while
 * it is down. The loan is Past Due exactly once after a new process takes over, and a repayment of the
 * overdue amount brings it back to Active.
 *
 * The moment: the first instalment fell due yesterday and LENDING_GRACE_PERIOD ends it ~45 s after this
 * file starts (a grace period, not a scaled schedule). Near midnight UTC the arithmetic still holds: the
 * grace is counted from the end of the due date.
 */

const today = new Date().toISOString().slice(0, 10);
const dueMoment = Date.now() + 45_000;
const graceMs = dueMoment - Date.parse(`${today}T00:00:00Z`);

let platform: TestPlatform;
let tenant: LendingTestTenant;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none', env: { LENDING_GRACE_PERIOD: `${graceMs}ms` } });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterEach(async () => {
  await workers.killAll();
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

const asManagement = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });

/** A disbursement date whose first due date is yesterday. */
function startForYesterday(): string {
  const product = creditProductSchema.parse(TEST_CREDIT_PRODUCT);
  for (let back = 26; back <= 33; back++) {
    const start = addDays(today, -back);
    const schedule = calculateSchedule(product, { amount: '1200.00', term: 12, startDate: start });
    if (schedule.instalments[0]?.dueDate === addDays(today, -1)) return start;
  }
  throw new Error('no start date found');
}

describe('a worker process killed with SIGKILL between due dates', () => {
  it('the due date passes while it is down: Past Due once after the restart, then a repayment → Active', async () => {
    const first = await workers.start();
    const customer = await registerCustomer(platform, tenant);
    const created = await asManagement('POST', '/Management/Loans', {
      body: {
        customerId: customer.customerId,
        productName: 'Personal 12',
        amount: '1200.00',
        term: 12,
        disbursements: [{ amount: '1200.00', date: startForYesterday() }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const loan = created.body;
    expect(loan.status).toBe('Active');
    expect(Date.now()).toBeLessThan(dueMoment);
    await loanAtRest(platform, tenant, loan.loanId);

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');
    // The moment passes with no worker: nothing moves.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueMoment - Date.now()) + 2_000));
    expect((await asManagement('GET', `/Management/Loans/${loan.loanId}`)).body.status).toBe('Active');

    await workers.start();
    const pastDue = await eventually(
      async () => {
        const read = await asManagement('GET', `/Management/Loans/${loan.loanId}`);
        return read.body.status === 'Past Due' ? read.body : undefined;
      },
      60_000,
      'Past Due after the restart',
    );
    expect(pastDue.servicing?.pastDueSince).toBe(addDays(today, -1));
    const entries = (await historyOf(platform, tenant, loan.loanId)).filter(
      (entry) => entry.status === 'Past Due',
    );
    expect(entries).toHaveLength(1);

    const paid = await asManagement<{ loan: LoanView }>('POST', '/Management/Loans/Repayments', {
      body: { loanId: loan.loanId, amount: pastDue.servicing?.overdueAmount },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.loan.status).toBe('Active');
  }, 180_000);
});
