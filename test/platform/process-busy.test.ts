import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type DevServer, startDevServer } from '../../platform/dev-server.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  pause,
  registerCustomer,
} from '../lending/support.ts';
import { type IsolatedPlatform, startIsolatedPlatform } from '../support/isolated-platform.ts';

/**
 * An Update the engine cannot take yet (decision 0087) is answered 503 `process_busy` with a
 * Retry-After, not 500. A Temporal dev server of this file's own takes one Update in flight per workflow
 * (`history.maxInFlightUpdates=1`). With the worker stopped, a first Update of a loan is admitted and
 * stays in flight; a second Update of the same loan is refused by the server (RESOURCE_EXHAUSTED), sent
 * again for TEMPORAL_UPDATE_QUEUE_TIMEOUT (2 s here), then answered 503. Once the worker is back both go
 * through: the first as it waited, the second when the caller sends it again.
 */

let server: DevServer | undefined;
let platform: IsolatedPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  server = await startDevServer({
    cliPath: await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH }),
    uiPort: false,
    dynamicConfig: { 'history.maxInFlightUpdates': 1 },
  });
  platform = await startIsolatedPlatform({
    temporalAddress: server.address,
    workflowBundlePath: inject('workflowBundlePath'),
    env: { TEMPORAL_UPDATE_QUEUE_TIMEOUT: '2s' },
  });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await server?.stop();
});

it('a second Update while the loan takes no more: 503 process_busy with Retry-After, then it goes through', async () => {
  const customer = await registerCustomer(platform, tenant, completeDetails());
  const call = (method: string, path: string, body?: unknown) =>
    lendingCall(platform, method, path, {
      key: tenant.keys.frontOffice,
      token: customer.token,
      ...(body ? { body } : {}),
    });
  const created = await call('POST', '/Customer/Loans/Create', {
    productName: 'Personal 12',
    amount: '5000',
    term: 12,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const details = `/Customer/Loans/${created.body.loanId}/LoanDetails`;

  // Nothing takes the loan's workflow tasks: an Update admitted now stays in flight.
  await platform.stopWorker();
  const first = call('PUT', details, { productName: 'Personal 12', amount: '4000', term: 12 });
  await pause(1_500);
  const started = Date.now();
  const second = await call('PUT', details, { productName: 'Personal 12', amount: '3000', term: 12 });
  expect(second.status, JSON.stringify(second.body)).toBe(503);
  expect(second.body.error?.code).toBe('process_busy');
  expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // It was sent again for the queue timeout (2 s) before the caller was answered.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);

  await platform.startWorker();
  const answered = await first;
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  expect(answered.body.amount).toMatch(/^4000(\.0+)?$/);
  const retried = await call('PUT', details, { productName: 'Personal 12', amount: '3000', term: 12 });
  expect(retried.status, JSON.stringify(retried.body)).toBe(200);
  expect(retried.body.amount).toMatch(/^3000(\.0+)?$/);
}, 120_000);
