import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookDeliveries } from '../../db/schema/webhooks.ts';
import { consentWorkflowId } from '../../domain/openbanking/processes.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bankHash, newCustomer, startConsent } from './consent-helpers.ts';

/**
 * A consent waiting for the user's SCA survives the worker: the worker stops while the consent waits,
 * the user approves at the bank and the bank calls back while no worker runs, the worker starts again,
 * and the flow completes from where it was: accounts stored, the hook called exactly once.
 */

let platform: TestPlatform;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  hooks = await startReceiver();
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

it('the worker restarted while a consent waits for SCA: the flow completes after the callback, once', async () => {
  const customer = await newCustomer(platform);
  const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: customer.headers,
    body: { url: hooks.url, redirectUrl: 'https://agent.example.com/done' },
  });
  const consent = await startConsent(customer, {
    bankHash: bankHash('bank-b'),
    hookHash: hook.body.hookHash,
  });

  await platform.stopWorker();
  // The user authenticates and the bank sends the browser back while no worker runs.
  const { submitted } = await driveSca(consent.scaRedirectUrl, {
    psuId: 'carol',
    password: 'sandbox-carol',
    decision: 'approve',
    submit: true,
  });
  expect(submitted!.status).toBe(303);
  expect(submitted!.headers.get('location')).toBe(`https://agent.example.com/done?state=${consent.state}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hooks.requests).toHaveLength(0);

  await platform.startWorker();
  const outcome = await platform.client.workflow.getHandle(consentWorkflowId(consent.consentId)).result();
  expect(outcome).toBe('ACTIVE');

  const delivery = await eventually(async () => {
    const [row] = await platform.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(eq(webhookDeliveries.subjectId, consent.consentId), eq(webhookDeliveries.status, 'delivered')),
      );
    return row;
  });
  expect(delivery.attemptCount).toBe(1);
  const calls = hooks.requests.filter((request) =>
    request.path.includes(`state=${encodeURIComponent(consent.state)}`),
  );
  expect(calls).toHaveLength(1);
  expect(hooks.requests).toHaveLength(1);

  const ibans = await customer.call<{ ibans: { ibanId: string }[] }>('GET', '/api/8/ibans', {
    headers: customer.headers,
  });
  expect(ibans.body.ibans).toHaveLength(1);
  const transactions = await customer.call<{ booked: unknown[]; pending: unknown[] }>(
    'GET',
    `/api/8/transactions/${ibans.body.ibans[0]!.ibanId}`,
    { headers: customer.headers },
  );
  expect(transactions.body.booked.length + transactions.body.pending.length).toBe(120);

  // A repeated callback (the user reloads the bank's return page) changes nothing.
  const again = await fetch(consent.callbackUrl, { method: 'POST', redirect: 'manual' });
  expect(again.status).toBe(303);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hooks.requests).toHaveLength(1);
});
