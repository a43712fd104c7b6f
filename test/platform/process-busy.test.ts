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
import { eventually } from '../support/platform.ts';

/**
 * An Update the engine cannot take yet (decision 0085) is answered 503 `process_busy` with a
 * Retry-After, not 500. A Temporal dev server of this file's own takes one Update in flight per workflow
 * (`history.maxInFlightUpdates=1`). With the worker stopped, Updates of one loan are admitted one at a
 * time and stay in flight; the others are refused by the server (RESOURCE_EXHAUSTED), sent again for
 * TEMPORAL_UPDATE_QUEUE_TIMEOUT (2 s here; the SDK's own retries add some), then answered 503. Once the
 * worker is back the admitted ones go through, and a refused one when the caller sends it again.
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
}, 240_000);

afterAll(async () => {
  await platform?.stop();
  await server?.stop();
});

it('concurrent Updates of one loan past the engine’s limit: 503 process_busy with Retry-After, none 500', async () => {
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
  const terms = (amount: number) => ({ productName: 'Personal 12', amount: String(amount), term: 12 });

  // Nothing takes the loan's workflow tasks: an admitted Update stays in flight.
  await platform.stopWorker();
  const started = Date.now();
  const answers: { amount: number; status: number; code?: string; retryAfter: string | null; ms: number }[] =
    [];
  const sent = [4000, 3900, 3800, 3700, 3600].map(async (amount, index) => {
    await pause(index === 0 ? 0 : 1_500); // the first is admitted before the others arrive
    const answer = await call('PUT', details, terms(amount));
    answers.push({
      amount,
      status: answer.status,
      ...(answer.body.error ? { code: answer.body.error.code } : {}),
      retryAfter: answer.headers.get('retry-after'),
      ms: Date.now() - started,
    });
  });
  // The refused ones are answered while the worker is still away (queue timeout + the SDK's retries).
  await eventually(async () => (answers.length >= 2 ? true : undefined), 60_000, 'refused Updates answered');
  const busy = [...answers];
  await platform.startWorker();
  await Promise.all(sent);

  expect(busy.length, JSON.stringify(answers)).toBeGreaterThanOrEqual(2);
  for (const answer of busy) {
    expect(answer, JSON.stringify(answers)).toMatchObject({ status: 503, code: 'process_busy' });
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  for (const answer of answers) expect([200, 503], JSON.stringify(answers)).toContain(answer.status);
  // A refused Update goes through when it is sent again.
  const again = await call('PUT', details, terms(busy[0]!.amount));
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  expect(Number(again.body.amount)).toBe(busy[0]!.amount);
}, 240_000);
