import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { historyOf } from '../support/workflow-history.ts';
import { loanWaitingForApproval, signingCodesSent } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, type LendingTestTenant } from './support.ts';

/**
 * ResendSmsCode's SMS is sent by an activity of a signing-code workflow (decision 0047); the activity
 * makes the code, so neither the workflow's input nor its history (results included) ever holds it.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

describe('the signing-code workflow', () => {
  it('sends each code from its activity and keeps it out of the workflow history', async () => {
    const loanId = await loanWaitingForApproval(platform, tenant);
    const codes = ['Pre-contract information', 'Loan agreement'].flatMap((name) =>
      signingCodesSent(platform, loanId, name),
    );
    expect(codes).toHaveLength(2);
    const workflowIds = await eventually(async () => {
      const ids: string[] = [];
      for await (const workflow of platform.client.workflow.list({
        query: `WorkflowType = 'lendingSigningCode' AND LoanId = '${loanId}'`,
      }))
        ids.push(workflow.workflowId);
      return ids.length === 2 ? ids : undefined;
    });
    for (const workflowId of workflowIds) {
      expect(workflowId.startsWith(`lending-signing-code-${tenant.tenantId}-${loanId}-`)).toBe(true);
      // Payloads are JSON bytes: read them as text.
      const history = JSON.stringify(await historyOf(platform.client, workflowId), (_, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value,
      );
      expect(history).toContain('sendSigningCodeSms');
      expect(history).toContain(loanId);
      // A code would stand as six digits of its own (not inside a longer number).
      for (const code of codes) expect(history).not.toMatch(new RegExp(`(?<!\\d)${code}(?!\\d)`));
    }
  });
});
