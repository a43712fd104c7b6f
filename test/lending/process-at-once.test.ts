import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { type SandboxBureau, startSandboxBureau } from '../../sandbox/lending/bureau.ts';
import { TEST_BUREAU_API_KEY } from '../support/isolated-platform.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  decidedLoan,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Process never holds an HTTP request for the credit bureau (issue 19): with a bureau that takes 30 s
 * (the sandbox bureau's `Slow` test customer, its latency set to 30 s, waited for by the platform),
 * Customer and Management Process answer in under a second with the request recorded, and the decision
 * arrives through the loan's workflow, where the integrator polls for it.
 */

const BUREAU_MS = 30_000;
let bureau: SandboxBureau;
let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  bureau = await startSandboxBureau({ apiKey: TEST_BUREAU_API_KEY, slowMs: BUREAU_MS });
  platform = await startTestPlatform({
    env: {
      LENDING_BUREAU_URL: bureau.url,
      // The platform waits for the slow bureau: one attempt, longer than it takes.
      LENDING_BUREAU_REQUEST_TIMEOUT: '45s',
      LENDING_BUREAU_ATTEMPTS: '1',
    },
  });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
  await bureau?.stop();
});

describe('Process with a bureau that takes 30 s', () => {
  it('Customer and Management Process answer in under a second; the decision follows in the loan', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails({ lastName: 'Slow' }));
    const asCustomer = (method: string, path: string) =>
      lendingCall<LoanView>(platform, method, path, { key: tenant.keys.frontOffice, token: customer.token });
    const asManagement = (method: string, path: string) =>
      lendingCall<LoanView>(platform, method, path, { key: tenant.keys.management });
    const apply = async () => {
      const created = await lendingCall<LoanView>(platform, 'POST', '/Customer/Loans/Create', {
        key: tenant.keys.frontOffice,
        token: customer.token,
        body: { productName: 'Personal 12', amount: '2000', term: 12 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.loanId;
    };
    const timed = async (call: Promise<Awaited<ReturnType<typeof asCustomer>>>) => {
      const started = performance.now();
      const answer = await call;
      return { answer, ms: performance.now() - started };
    };

    const [byCustomer, byManagement] = [await apply(), await apply()];
    const customers = await timed(asCustomer('POST', `/Customer/Loans/${byCustomer}/Process`));
    const managements = await timed(asManagement('POST', `/Management/Loans/${byManagement}/Process`));
    for (const { answer, ms } of [customers, managements]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(ms).toBeLessThan(1_000);
      // Recorded, the decision pending.
      expect(answer.body.status).toBe('Origination');
      expect(answer.body.offers).toEqual([]);
      expect(answer.body.statusHistory.at(-1)).toMatchObject({ status: 'Origination' });
    }
    // The bureau is being asked: a second Process is refused meanwhile.
    const again = await asCustomer('POST', `/Customer/Loans/${byCustomer}/Process`);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('decision_in_progress');

    // The decision arrives through the workflow once the bureau answers.
    const [customerDecided, managementDecided] = await Promise.all([
      decidedLoan(customers.answer, () => asCustomer('GET', `/Customer/Loans/${byCustomer}`), 60_000),
      decidedLoan(managements.answer, () => asManagement('GET', `/Management/Loans/${byManagement}`), 60_000),
    ]);
    for (const decided of [customerDecided, managementDecided]) {
      expect(decided.body.status).toBe('Offer confirmation');
      expect(decided.body.offers).toHaveLength(1);
    }
    expect(managementDecided.body.decision).toMatchObject({ outcome: 'approve' });
    expect(bureau.requests.filter((request) => request.status === 200)).toHaveLength(2);
  }, 90_000);
});
