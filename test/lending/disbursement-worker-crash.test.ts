import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newOperator, openDesk } from '../collect/desk-client.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { idleOnTimer, historyOf as workflowHistoryOf } from '../support/workflow-history.ts';
import {
  activeLoan,
  approvedLoan,
  type CollectMerchant,
  issued,
  loanOf,
  makeMerchant,
  notified,
  RECIPIENT,
} from './disbursement-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  answeredWithin,
  createLendingTenant,
  historyOf,
  type LendingTestTenant,
  loanAtRest,
  updatesIn,
} from './support.ts';

/**
 * Durability of a loan waiting for its cash payout against a real crash (decision 0041): the worker runs
 * as its own OS process (`cmd/worker-main.ts`) and is killed with SIGKILL while the loan's workflow
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

describe('a worker process killed with SIGKILL while a loan waits for its payout', () => {
  it('the payout collected while the worker is down: after the restart the loan is Active once', async () => {
    const first = await workers.start();
    const desk = await openDesk(platform, await newOperator(platform));
    const loanId = await approvedLoan(platform, tenant);
    const { idn, invoice } = await issued(platform, tenant, loanId);
    await loanAtRest(platform, tenant, loanId);
    await eventually(
      async () => (idleOnTimer(await workflowHistoryOf(platform.client, `payout-${idn}`)) ? true : undefined),
      15_000,
      `payout-${idn} to wait on its timer`,
    );

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    // The customer comes to the desk while no worker runs: the payout waits for one, the loan is unchanged.
    const payingOut = desk.payOut(idn, RECIPIENT);
    expect(await answeredWithin(payingOut, 1_000)).toBe(false);
    expect((await loanOf(platform, tenant, loanId)).status).toBe('Approved');

    await workers.start();
    const paid = await payingOut;
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const active = await activeLoan(platform, tenant, loanId, 60_000);
    expect(active.disbursement).toMatchObject({ amount: '3000.00' });

    const notification = await notified(platform, merchant, invoice, 'PAID');
    expect(notification).toMatchObject({ status: 'PAID', delivery: 'delivered', attemptCount: 1 });
    const history = await historyOf(platform, tenant, loanId);
    expect(history.filter((entry) => entry.status === 'Active')).toHaveLength(1);
    expect(history.at(-1)?.status).toBe('Active');
    expect(await updatesIn(platform, tenant, loanId, 'issueDisbursement')).toBe(1);
    expect((await desk.payOut(idn, RECIPIENT)).body.error?.code).toBe('already_paid');
  }, 120_000);
});
