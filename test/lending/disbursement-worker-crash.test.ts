import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loanWorkflowId } from '../../domain/lending/loan-process.ts';
import { newOperator, openDesk } from '../collect/desk-client.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { idleOnTimer, historyOf as workflowHistoryOf } from '../support/workflow-history.ts';
import {
  approvedLoan,
  type CollectMerchant,
  gatewayNotifications,
  historyOf,
  issueDisbursement,
  loanOf,
  makeMerchant,
  pause,
  RECIPIENT,
} from './disbursement-support.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, type LendingTestTenant } from './support.ts';

/**
 * Durability of a loan waiting for its cash payout against a real crash (decision 0041): the worker runs
 * as its own OS process (`platform/worker-main.ts`) and is killed with SIGKILL while the loan's workflow
 * rests in Approved with its payout registered at the collection gateway (and the payout's workflow
 * sleeps on its expiry timer). The customer comes to the cash desk while no worker runs; once a new
 * worker is up the payout is PAID, lending is notified, and the loan is Active exactly once.
 *
 * A takeover costs about 10 s (the dead worker's sticky queue times out first, as in a real crash).
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
let merchant: CollectMerchant;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  merchant = await makeMerchant(platform, tenant);
});
afterEach(async () => {
  await workers.killAll();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

/** The loan's workflow is at rest: no activity or workflow task in flight, every Update answered. */
const loanAtRest = (loanId: string) =>
  eventually(
    async () => {
      const events = await workflowHistoryOf(platform.client, loanWorkflowId(tenant.tenantId, loanId));
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).length;
      const closed = events.filter(
        (event) =>
          event.activityTaskCompletedEventAttributes ||
          event.activityTaskFailedEventAttributes ||
          event.activityTaskTimedOutEventAttributes,
      ).length;
      const last = events.at(-1);
      const quiet = Boolean(
        last?.workflowTaskCompletedEventAttributes ||
          last?.workflowExecutionUpdateCompletedEventAttributes ||
          last?.timerCanceledEventAttributes,
      );
      return scheduled === closed && quiet ? true : undefined;
    },
    15_000,
    `loan ${loanId} at rest`,
  );

const issueUpdatesIn = async (loanId: string) =>
  (await workflowHistoryOf(platform.client, loanWorkflowId(tenant.tenantId, loanId))).filter(
    (event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
      'issueDisbursement',
  ).length;

describe('a worker process killed with SIGKILL while a loan waits for its payout', () => {
  it('the payout collected while the worker is down: after the restart the loan is Active once', async () => {
    const first = await workers.start();
    const desk = await openDesk(platform, await newOperator(platform));
    const loanId = await approvedLoan(platform, tenant);
    const issued = await issueDisbursement(platform, tenant, loanId);
    expect(issued.status, JSON.stringify(issued.body)).toBe(202);
    const { idn, invoice } = issued.body.payout;
    expect(idn).toMatch(/^\d{10}$/);
    await loanAtRest(loanId);
    await eventually(
      async () => (idleOnTimer(await workflowHistoryOf(platform.client, `payout-${idn}`)) ? true : undefined),
      15_000,
      `payout-${idn} to wait on its timer`,
    );

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    // The customer comes to the desk while no worker runs: the payout waits for one, the loan is unchanged.
    const payingOut = desk.payOut(idn as string, RECIPIENT);
    let answered = false;
    void payingOut.then(() => {
      answered = true;
    });
    await pause(1_000);
    expect(answered).toBe(false);
    expect((await loanOf(platform, tenant, loanId)).status).toBe('Approved');

    await workers.start();
    const paid = await payingOut;
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const active = await eventually(
      async () => {
        const loan = await loanOf(platform, tenant, loanId);
        return loan.status === 'Active' ? loan : undefined;
      },
      60_000,
      'the loan to be Active',
    );
    expect(active.disbursement).toMatchObject({ amount: '3000.00' });

    const [notification] = await eventually(
      async () => {
        const found = await gatewayNotifications(platform, merchant, invoice);
        return found[0]?.delivery === 'delivered' ? found : undefined;
      },
      30_000,
      'the PAID notification to be delivered',
    );
    expect(notification).toMatchObject({ status: 'PAID', attemptCount: 1 });
    await pause(1_500);
    const history = await historyOf(platform, tenant, loanId);
    expect(history.filter((entry) => entry.status === 'Active')).toHaveLength(1);
    expect(history.at(-1)?.status).toBe('Active');
    expect(await issueUpdatesIn(loanId)).toBe(1);
    expect((await desk.payOut(idn as string, RECIPIENT)).body.error?.code).toBe('already_paid');
  }, 120_000);
});
