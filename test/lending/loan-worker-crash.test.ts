import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../api/lending/loan-records.ts';
import { lendingLoanStatusHistory } from '../../db/schema/lending-loans.ts';
import { loanWorkflowId } from '../../domain/lending/loan-process.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { historyOf } from '../support/workflow-history.ts';
import { signLoanDocuments } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Durability of a loan waiting for approval against a real crash: the worker runs as its own OS process
 * (`platform/worker-main.ts`) and is killed with SIGKILL while a loan whose offer was accepted waits in
 * Waiting for approval (its workflow at rest, nothing in flight); a new process takes over. An approval sent while
 * no worker runs waits for one; the loan is approved exactly once (one Approved entry in its history,
 * one Approve Update in the workflow's history), and a second approval is refused by its status.
 *
 * A takeover costs about 10 s (the dead worker's sticky queue times out first, as in a real crash).
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
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

const asManagement = (method: string, path: string, request = {}) =>
  lendingCall<LoanView>(platform, method, path, { key: tenant.keys.management, ...request });

/** A loan whose offer the customer accepted: Waiting for approval. */
async function loanWaitingForApproval(): Promise<string> {
  const customer = await registerCustomer(platform, tenant, completeDetails());
  const call = (method: string, path: string, request = {}) =>
    lendingCall<LoanView>(platform, method, path, {
      key: tenant.keys.frontOffice,
      token: customer.token,
      ...request,
    });
  const created = await call('POST', '/Customer/Loans/Create', {
    body: { productName: 'Personal 12', amount: '3000', term: 12 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const processed = await call('POST', `/Customer/Loans/${created.body.loanId}/Process`);
  expect(processed.body.status).toBe('Offer confirmation');
  const accepted = await call('POST', `/Customer/Loans/${created.body.loanId}/AcceptLoanOffer`);
  expect(accepted.body.status).toBe('Waiting for approval');
  // Management approves once the documents are signed (decision 0040).
  await signLoanDocuments(platform, tenant, customer.token, created.body.loanId);
  return created.body.loanId;
}

/** The loan's workflow is at rest: no activity or workflow task in flight, every Update answered. */
const atRest = (loanId: string) =>
  eventually(
    async () => {
      const events = await historyOf(platform.client, loanWorkflowId(tenant.tenantId, loanId));
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).length;
      const closed = events.filter(
        (event) =>
          event.activityTaskCompletedEventAttributes ||
          event.activityTaskFailedEventAttributes ||
          event.activityTaskTimedOutEventAttributes,
      ).length;
      const last = events.at(-1);
      const quiet = Boolean(
        last?.workflowTaskCompletedEventAttributes || last?.workflowExecutionUpdateCompletedEventAttributes,
      );
      return scheduled === closed && quiet ? true : undefined;
    },
    15_000,
    `loan ${loanId} at rest`,
  );

const approvedEntries = async (loanId: string) =>
  (
    await platform.db
      .select()
      .from(lendingLoanStatusHistory)
      .where(
        and(
          eq(lendingLoanStatusHistory.tenantId, tenant.tenantId),
          eq(lendingLoanStatusHistory.loanId, loanId),
        ),
      )
  ).filter((entry) => entry.status === 'Approved');

const approveUpdatesIn = async (loanId: string) =>
  (await historyOf(platform.client, loanWorkflowId(tenant.tenantId, loanId))).filter(
    (event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'approve',
  ).length;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a worker process killed with SIGKILL while a loan waits for approval', () => {
  it('approved while the worker is down, or right after the restart: approved once each', async () => {
    const first = await workers.start();
    const down = await loanWaitingForApproval();
    const after = await loanWaitingForApproval();
    await atRest(down);
    await atRest(after);

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    // Management approves while no worker runs: the approval waits for one.
    const approvedWhileDown = asManagement('POST', `/Management/Loans/${down}/Approve`, {
      query: { comments: 'while down' },
    });
    let answered = false;
    void approvedWhileDown.then(() => {
      answered = true;
    });
    await pause(1_000);
    expect(answered).toBe(false);
    expect((await asManagement('GET', `/Management/Loans/${down}`)).body.status).toBe('Waiting for approval');

    await workers.start();
    const approvedAfter = asManagement('POST', `/Management/Loans/${after}/Approve`, {
      query: { comments: 'after' },
    });
    for (const [loanId, answer] of [
      [down, await approvedWhileDown],
      [after, await approvedAfter],
    ] as const) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.status).toBe('Approved');
      expect(await approvedEntries(loanId)).toHaveLength(1);
      expect(await approveUpdatesIn(loanId)).toBe(1);
      // Once approved, approving again is refused by the status.
      const again = await asManagement('POST', `/Management/Loans/${loanId}/Approve`);
      expect(again.status).toBe(409);
      expect(again.body.error?.message).toContain('status Approved');
    }
    expect(await approvedEntries(down).then((entries) => entries[0]?.comments)).toBe('while down');
  }, 120_000);
});
