import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { lendingLoanDocumentDecisions } from '../../db/schema/lending-documents.ts';
import { type DocTypeId, docTypeIds, systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import { type ReceivedRequest, startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { approvedLoan } from './disbursement-support.ts';
import { codeOfAcceptance } from './documents-support.ts';
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
 * Lending events (issue 40 item 3, decision 0088; a design extension, not in the spec): a tenant registers
 * its endpoints at `/lending/webhooks/endpoints` with its Management key and receives a signed Standard
 * Webhooks event for every change of its loans, sent by the loan's workflow exactly once per change:
 * each status change, the disbursement, each repayment booked and reversed, each bid placed. Every event
 * verifies with the `standardwebhooks` library's default `verify()`; a failed delivery is replayed by the
 * tenant; another tenant sees none of it.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
let other: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { WEBHOOK_RETRY_SCHEDULE: '200ms' } });
  tenant = await createLendingTenant(platform);
  other = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

type Answer<T> = { status: number; body: T & { error?: { code: string } } };
/** The lending webhook routes (outside the spec's PublicApi tree), with a tenant's key. */
async function webhookCall<T = Record<string, unknown>>(
  key: string | null,
  method: string,
  route: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (key) headers.lender_ApiKey = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${platform.apiUrl}/lending${route}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Answer<T>['body'] };
}

interface Endpoint {
  id: string;
  url: string;
  secret: string;
}
interface LendingEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { loanId: string; version: number };
}

/** Verifies a received request with the Standard Webhooks library's default verify(); answers the event. */
function verified(secret: string, request: ReceivedRequest): LendingEvent {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as LendingEvent;
}

const management = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });

/** The status history without repeats: the path the loan took. */
const pathOf = (loan: LoanView) =>
  loan.statusHistory
    .map((entry) => entry.status)
    .filter((status, index, all) => index === 0 || all[index - 1] !== status);

describe('lending events over Standard Webhooks', () => {
  it('a loan journey: one verified event per change at every endpoint of the tenant; replay; no other tenant', async () => {
    const receiver = await startReceiver();
    let failing = true;
    const flaky = await startReceiver(() => ({ status: failing ? 503 : 200 }));
    try {
      // Only the Management key reaches the webhook routes.
      expect((await webhookCall(null, 'GET', '/webhooks/endpoints')).status).toBe(401);
      expect((await webhookCall(tenant.keys.frontOffice, 'GET', '/webhooks/endpoints')).status).toBe(403);
      const created = await webhookCall<Endpoint>(tenant.keys.management, 'POST', '/webhooks/endpoints', {
        url: receiver.url,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const endpoint = created.body;
      expect(endpoint.secret).toMatch(/^whsec_/);
      const flakyEndpoint = (
        await webhookCall<Endpoint>(tenant.keys.management, 'POST', '/webhooks/endpoints', { url: flaky.url })
      ).body;

      // The journey: applied, decided, accepted, signed, approved; a bid; disbursed; a repayment booked
      // and reversed; paid off.
      const loanId = await approvedLoan(platform, tenant);
      const investor = await lendingCall<{ userAuthToken: string }>(platform, 'POST', '/Investor/Register', {
        key: tenant.keys.frontOffice,
        query: {
          login: `investor-${randomBytes(5).toString('hex')}@example.com`,
          password: `pw-${randomBytes(9).toString('base64url')}`,
        },
        body: {},
      });
      expect(investor.status, JSON.stringify(investor.body)).toBe(201);
      const bid = await lendingCall<{ id: string }>(platform, 'POST', '/Investor/Bids/Submit', {
        key: tenant.keys.frontOffice,
        token: investor.body.userAuthToken,
        body: { loanId, amount: '1000.00' },
      });
      expect(bid.status, JSON.stringify(bid.body)).toBe(201);
      const today = new Date().toISOString().slice(0, 10);
      const disbursed = await management('POST', '/Management/Loans/Disbursements', {
        body: { loanId, amount: '3000.00', date: today },
      });
      expect(disbursed.body.status).toBe('Active');
      const booked = await management<{ repayment: { id: string } }>('POST', '/Management/Loans/Repayments', {
        body: { loanId, amount: '100.00' },
      });
      expect(booked.status, JSON.stringify(booked.body)).toBe(201);
      const reversed = await management<{ loan: LoanView }>(
        'DELETE',
        `/Management/Loans/Repayments/${booked.body.repayment.id}`,
      );
      expect(reversed.status, JSON.stringify(reversed.body)).toBe(200);
      const payoff = reversed.body.loan.servicing?.payoffAmount as string;
      const paidOff = await management<{ repayment: { id: string }; loan: LoanView }>(
        'POST',
        '/Management/Loans/Repayments',
        { body: { loanId, amount: payoff } },
      );
      expect(paidOff.status, JSON.stringify(paidOff.body)).toBe(201);
      expect(paidOff.body.loan.status).toBe('Repaid');

      // Every event verifies with the endpoint's secret (the library's default verify()).
      const eventsOf = () => receiver.requests.map((request) => verified(endpoint.secret, request));
      await eventually(
        async () =>
          eventsOf().some((event) => event.type === 'loan.status_changed' && event.data.to === 'Repaid') ||
          undefined,
        30_000,
        'the Repaid event',
      );
      // Nothing more arrives: one event per change.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const events = eventsOf().filter((event) => event.data.loanId === loanId);
      const ids = receiver.requests.map((request) => request.headers['webhook-id']);
      expect(new Set(ids).size).toBe(ids.length);

      const loan = (await management('GET', `/Management/Loans/${loanId}`)).body;
      const statusChanges = events
        .filter((event) => event.type === 'loan.status_changed')
        .sort((a, b) => a.data.version - b.data.version);
      const path = pathOf(loan);
      expect(statusChanges.map((event) => event.data.to)).toEqual(path);
      expect(statusChanges.map((event) => event.data.from)).toEqual([null, ...path.slice(0, -1)]);
      expect(statusChanges[0]?.data).toMatchObject({
        tenantId: tenant.tenantId,
        customerId: loan.customerId,
      });
      const ofType = (type: string) =>
        events.filter((event) => event.type === type).map((event) => event.data);
      expect(ofType('loan.bid_placed')).toEqual([
        expect.objectContaining({ loanId, bidId: bid.body.id, amount: '1000.00' }),
      ]);
      expect(ofType('loan.disbursed')).toEqual([
        expect.objectContaining({ loanId, amount: '3000.00', currency: 'EUR', date: today }),
      ]);
      expect(ofType('loan.repayment_booked')).toEqual([
        expect.objectContaining({ repaymentId: booked.body.repayment.id, amount: '100.00' }),
        expect.objectContaining({ repaymentId: paidOff.body.repayment.id, amount: payoff }),
      ]);
      expect(ofType('loan.repayment_reversed')).toEqual([
        expect.objectContaining({ repaymentId: booked.body.repayment.id, amount: '100.00' }),
      ]);
      // Each signature of the journey (both documents, signed before Approve) is one event.
      const signed = ofType('loan.document_signed');
      expect(signed.map((data) => data.docTypeId).sort()).toEqual([...docTypeIds].sort());
      for (const { docTypeId, name } of systemDocumentTypes)
        expect(signed.find((data) => data.docTypeId === docTypeId)).toMatchObject({
          tenantId: tenant.tenantId,
          loanId,
          customerId: loan.customerId,
          name,
          signedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        });
      expect(events).toHaveLength(statusChanges.length + 5 + docTypeIds.length);

      // The other endpoint got the same events and failed them all; one is replayed by the tenant.
      const failed = await eventually(
        async () => {
          const page = await webhookCall<{ total: number; items: { id: string; endpointId: string }[] }>(
            tenant.keys.management,
            'GET',
            `/webhooks/deliveries?status=failed&size=100`,
          );
          const items = page.body.items.filter((item) => item.endpointId === flakyEndpoint.id);
          return items.length === events.length ? items : undefined;
        },
        30_000,
        "the flaky endpoint's deliveries to fail",
      );
      failing = false;
      const delivery = failed[0]!;
      const before = flaky.requests.length;
      const replayed = await webhookCall(
        tenant.keys.management,
        'POST',
        `/webhooks/deliveries/${delivery.id}/replay`,
      );
      expect(replayed.status, JSON.stringify(replayed.body)).toBe(202);
      const again = await eventually(
        async () =>
          flaky.requests.slice(before).find((request) => request.headers['webhook-id'] === delivery.id),
        30_000,
        'the replayed delivery',
      );
      expect(verified(flakyEndpoint.secret, again).data.loanId).toBe(loanId);

      // Another tenant sees none of it: its own list is empty, the first tenant's delivery and endpoint 404.
      const otherKey = other.keys.management;
      expect(
        (await webhookCall<{ items: unknown[] }>(otherKey, 'GET', '/webhooks/endpoints')).body.items,
      ).toEqual([]);
      expect((await webhookCall(otherKey, 'GET', `/webhooks/deliveries/${delivery.id}`)).status).toBe(404);
      expect((await webhookCall(otherKey, 'POST', `/webhooks/deliveries/${delivery.id}/replay`)).status).toBe(
        404,
      );
      expect(
        (await webhookCall(otherKey, 'POST', `/webhooks/endpoints/${endpoint.id}/rotate-secret`)).status,
      ).toBe(404);
      expect((await webhookCall(otherKey, 'DELETE', `/webhooks/endpoints/${endpoint.id}`)).status).toBe(404);
    } finally {
      await receiver.stop();
      await flaky.stop();
    }
  }, 180_000);

  it('a signature whose hint to the loan was lost (a crash after its commit) is announced when the loan is approved', async () => {
    const own = await createLendingTenant(platform);
    await createCreditProduct(platform, own.tenantId);
    const receiver = await startReceiver();
    try {
      const endpoint = (
        await webhookCall<Endpoint>(own.keys.management, 'POST', '/webhooks/endpoints', { url: receiver.url })
      ).body;
      const customer = await registerCustomer(platform, own, completeDetails());
      const call = <T = LoanView>(method: string, path: string, request = {}) =>
        lendingCall<T>(platform, method, path, {
          key: own.keys.frontOffice,
          token: customer.token,
          ...request,
        });
      const created = await call('POST', '/Customer/Loans/Create', {
        body: { productName: 'Personal 12', amount: '3000.00', term: 12 },
      });
      const { loanId } = created.body;
      const processed = await decidedLoan(await call('POST', `/Customer/Loans/${loanId}/Process`), () =>
        call('GET', `/Customer/Loans/${loanId}`),
      );
      expect(processed.body.status).toBe('Offer confirmation');
      expect((await call('POST', `/Customer/Loans/${loanId}/AcceptLoanOffer`)).body.status).toBe(
        'Waiting for approval',
      );
      // The first document signed over the API (its hint reaches the loan): its event arrives before Approve.
      const [first, second] = docTypeIds as [DocTypeId, DocTypeId];
      const code = await codeOfAcceptance(platform, loanId, first);
      const signed = await call('POST', `/Customer/Loans/${loanId}/SignDocument`, {
        query: { docTypeId: first, code },
      });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      const eventsOf = () =>
        receiver.requests
          .map((request) => verified(endpoint.secret, request))
          .filter((event) => event.type === 'loan.document_signed');
      await eventually(async () => eventsOf()[0], 30_000, 'the first signature');
      // The second one as a crash right after SignDocument's commit leaves it: recorded, the loan not told.
      const listed = await call<{ documents: { docTypeId: string; contentHash: string }[] }>(
        'GET',
        `/Customer/Loans/${loanId}/Documents`,
      );
      const document = listed.body.documents.find((candidate) => candidate.docTypeId === second)!;
      await platform.db.insert(lendingLoanDocumentDecisions).values({
        tenantId: own.tenantId,
        loanId,
        docTypeId: second,
        contentHash: document.contentHash,
        decision: 'signed',
        userId: 'usr_crashed',
        at: new Date(),
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(eventsOf().map((event) => event.data.docTypeId)).toEqual([first]);

      const approved = await lendingCall<LoanView>(platform, 'POST', `/Management/Loans/${loanId}/Approve`, {
        key: own.keys.management,
      });
      expect(approved.body.status).toBe('Approved');
      await eventually(async () => eventsOf()[1], 30_000, 'the second signature, caught up at Approve');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(eventsOf().map((event) => event.data.docTypeId)).toEqual([first, second]);
    } finally {
      await receiver.stop();
    }
  }, 120_000);

  it('npm run webhooks -- listen --service lending: a Management key, the events verified and forwarded', async () => {
    const own = await createLendingTenant(platform);
    await createCreditProduct(platform, own.tenantId);
    const target = await startReceiver();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'cmd/webhooks-cli.ts',
        'listen',
        '--service',
        'lending',
        '--forward-to',
        target.url,
      ],
      {
        env: { ...process.env, API_URL: platform.apiUrl, LENDER_API_KEY: own.keys.management },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = { text: '' };
    child.stdout?.on('data', (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = (pattern: RegExp, what: string) =>
        eventually(async () => output.text.match(pattern) ?? undefined, 30_000, what);
      const endpointId = (await line(/Ready\. Endpoint (whe_\S+): /, 'ready'))[1] as string;
      const secret = (await line(/Signing secret[^:]*: (whsec_\S+)/, 'the secret'))[1] as string;

      const customer = await registerCustomer(platform, own, completeDetails());
      const created = await lendingCall<LoanView>(platform, 'POST', '/Customer/Loans/Create', {
        key: own.keys.frontOffice,
        token: customer.token,
        body: { productName: 'Personal 12', amount: '3000.00', term: 12 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const forwarded = await eventually(async () => target.requests[0], 30_000, 'the forwarded event');
      expect(verified(secret, forwarded)).toMatchObject({
        type: 'loan.status_changed',
        data: { loanId: created.body.loanId, from: null, to: 'Origination' },
      });
      await line(/\S+Z {2}loan\.status_changed {2}whd_\S+ {2}→ 200/, 'the event line');

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output.text).toContain(`SIGINT: deleted endpoint ${endpointId}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await target.stop();
    }
  }, 90_000);
});
