import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { loanWaitingForApproval } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  answeredWithin,
  createLendingTenant,
  historyOf,
  type LendingTestTenant,
  lendingCall,
  loanAtRest,
  updatesIn,
} from './support.ts';

/**
 * Durability of a loan waiting for approval against a real crash: the worker runs as its own OS process
 * (`cmd/worker-main.ts`) and is killed with SIGKILL while a loan whose offer was accepted waits in
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

const approvedEntries = async (loanId: string) =>
  (await historyOf(platform, tenant, loanId)).filter((entry) => entry.status === 'Approved');

describe('a worker process killed with SIGKILL while a loan waits for approval', () => {
  it('approved while the worker is down, or right after the restart: approved once each', async () => {
    const first = await workers.start();
    const down = await loanWaitingForApproval(platform, tenant);
    const after = await loanWaitingForApproval(platform, tenant);
    await loanAtRest(platform, tenant, down);
    await loanAtRest(platform, tenant, after);

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    // Management approves while no worker runs: the approval waits for one.
    const approvedWhileDown = asManagement('POST', `/Management/Loans/${down}/Approve`, {
      query: { comments: 'while down' },
    });
    expect(await answeredWithin(approvedWhileDown, 1_000)).toBe(false);
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
      expect(await updatesIn(platform, tenant, loanId, 'approve')).toBe(1);
      // Once approved, approving again is refused by the status.
      const again = await asManagement('POST', `/Management/Loans/${loanId}/Approve`);
      expect(again.status).toBe(409);
      expect(again.body.error?.message).toContain('status Approved');
    }
    expect(await approvedEntries(down).then((entries) => entries[0]?.comments)).toBe('while down');
  }, 120_000);
});
