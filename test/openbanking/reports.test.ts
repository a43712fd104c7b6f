import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolUser } from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  authorise,
  bulkOnceFinal,
  creditorIban,
  DEBTOR_IBAN,
  entries,
  ledgerOf,
  startBulk,
} from './bulk-helpers.ts';
import { bankHash, type Customer, newCustomer } from './consent-helpers.ts';

/**
 * Payment searches, reports and the audit against known inputs: the payments are made through the
 * bulk operations and the sandbox bank (so their statuses are the bank's), then every figure is
 * checked against what was paid. Another agent's payments never show.
 *
 * Inputs (all Bank A, BGN, today):
 *   user 1: bulk of 4 (1.25, 2.25, 3.25, 4.25), the 3.25 rejected by the bank → 3 CONFIRMED (7.75), 1 FAILED
 *   user 2: bulk of 2 (1.25, 2.25) denied at the bank → 2 FAILED (3.50); bulk of 1 (1.25) never authorised → WAITING
 *   user 3: nothing;  another agent: bulk of 1 (1.25) CONFIRMED
 */

let platform: TestPlatform;
let agent: Customer;
let user2: Customer;
let other: Customer;
let hookHash: string;
let firstBulkId: string;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

async function bulkOf(customer: Customer, count: number, decision: 'approve' | 'deny' | 'none', extra = {}) {
  const started = await startBulk(customer, { payments: entries(count, count), ...extra });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  if (decision === 'none') return started.body.bulkId;
  await authorise(started.body.scaRedirectUrl!, decision);
  await bulkOnceFinal(customer, started.body.bulkId);
  return started.body.bulkId;
}

beforeAll(async () => {
  platform = await startTestPlatform({ env: { OPENBANKING_BULK_POLL_INTERVAL: '200ms' } });
  ledgerOf(platform).setBalance(DEBTOR_IBAN, 1_000_000_000);
  ledgerOf(platform).setBehaviour(creditorIban(2), { kind: 'reject' });
  agent = await newCustomer(platform, 'Reporting agent');
  const hook = await agent.call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: { 'x-agent-hash': agent.agentHash },
    body: { url: 'https://agent.example.com/hook' },
  });
  expect(hook.status).toBe(201);
  hookHash = hook.body.hookHash;
  const second = await enrolUser(agent.call, agent.agentHash);
  user2 = { ...agent, user: second, headers: { 'x-user-hash': second.userHash } };
  await enrolUser(agent.call, agent.agentHash); // user 3: enrolled, never active
  other = await newCustomer(platform, 'Another agent');

  firstBulkId = await bulkOf(agent, 4, 'approve', { hookHash });
  await bulkOf(user2, 2, 'deny');
  await bulkOf(user2, 1, 'none');
  await bulkOf(other, 1, 'approve');
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

const asAgent = (customer: Customer = agent) => ({ 'x-agent-hash': customer.agentHash });

type Page = {
  total: number;
  items: { code: string; amount: string; status: string; userId: string; updatedAt: string }[];
};

describe('POST payments (criteria, sorting, paging)', () => {
  it('filters by status and answers only the agent’s payments', async () => {
    const failed = await agent.call<Page>('POST', '/api/8/payments', {
      headers: asAgent(),
      body: { criteria: { statuses: ['FAILED'] } },
    });
    expect(failed.status).toBe(200);
    expect(failed.body.total).toBe(3);
    expect(failed.body.items.map((item) => item.amount).sort()).toEqual(['1.25', '2.25', '3.25']);
    const all = await agent.call<Page>('POST', '/api/7/payments', { headers: asAgent(), body: {} });
    expect(all.body.total).toBe(7);
    const theirs = await other.call<Page>('POST', '/api/8/payments', { headers: asAgent(other), body: {} });
    expect(theirs.body.total).toBe(1);
    const byUser = await agent.call<Page>('POST', '/api/8/payments', {
      headers: asAgent(),
      body: { criteria: { userId: user2.user.userId, amountFrom: '2.00' } },
    });
    expect(byUser.body.items.map((item) => item.amount)).toEqual(['2.25']);
    // Another agent's user as a criterion finds nothing of theirs.
    const probe = await other.call<Page>('POST', '/api/8/payments', {
      headers: asAgent(other),
      body: { criteria: { userId: agent.user.userId } },
    });
    expect(probe.body.total).toBe(0);
  });

  it('sorts and pages stably', async () => {
    const sorted = await agent.call<Page>('POST', '/api/8/payments', {
      headers: asAgent(),
      body: { sortBy: 'amount', sortDirection: 'asc', size: 50 },
    });
    const amounts = sorted.body.items.map((item) => Number(item.amount));
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    const codes: string[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const answer = await agent.call<Page>('POST', '/api/8/payments', {
        headers: asAgent(),
        body: { sortBy: 'amount', sortDirection: 'desc', page, size: 2 },
      });
      expect(answer.body.total).toBe(7);
      codes.push(...answer.body.items.map((item) => item.code));
    }
    expect(codes).toHaveLength(7);
    expect(new Set(codes).size).toBe(7);
  });

  it('refuses bad criteria naming the field, and callers without the agent’s hash', async () => {
    const fieldsOf = async (body: Record<string, unknown>) => {
      const answer = await agent.call('POST', '/api/8/payments', { headers: asAgent(), body });
      expect(answer.status).toBe(400);
      return answer.body.error?.fields?.map((field) => field.field);
    };
    expect(await fieldsOf({ criteria: { statuses: ['DONE'] } })).toEqual(['criteria.statuses.0']);
    expect(await fieldsOf({ criteria: { dateFrom: today, dateTo: yesterday } })).toEqual([
      'criteria.dateFrom',
    ]);
    expect(await fieldsOf({ criteria: { amountFrom: '5.00', amountTo: '1.00' } })).toEqual([
      'criteria.amountFrom',
    ]);
    expect(await fieldsOf({ sortBy: 'creditor' })).toEqual(['sortBy']);
    expect(await fieldsOf({ size: 501 })).toEqual(['size']);
    expect((await agent.call('POST', '/api/8/payments', { headers: agent.headers, body: {} })).status).toBe(
      401,
    );
    expect((await agent.call('POST', '/api/6/payments', { headers: asAgent(), body: {} })).status).toBe(404);
  });
});

describe('POST payments/search-last-updated', () => {
  it('filters by several statuses, most recently changed first; x-agent-hash required', async () => {
    const answer = await agent.call<Page>('POST', '/api/8/payments/search-last-updated', {
      headers: asAgent(),
      body: { statuses: ['CONFIRMED', 'WAITING'] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.total).toBe(4);
    const times = answer.body.items.map((item) => item.updatedAt);
    expect(times).toEqual([...times].sort().reverse());
    const none = await agent.call('POST', '/api/8/payments/search-last-updated', { body: {} });
    expect(none.status).toBe(401);
  });
});

describe('bulk payments by hook and by search', () => {
  it('GET bulk-payments/status/{hookHash}: the agent’s bulks of the hook; another agent’s hook is 404', async () => {
    const status = await agent.call<{
      total: number;
      bulks: { bulkId: string; status: string; confirmed: number }[];
    }>('GET', `/api/8/bulk-payments/status/${hookHash}`, { headers: asAgent() });
    expect(status.status).toBe(200);
    expect(status.body.total).toBe(1);
    expect(status.body.bulks[0]).toMatchObject({
      bulkId: firstBulkId,
      status: 'PARTIALLY_CONFIRMED',
      confirmed: 3,
    });
    const foreign = await other.call('GET', `/api/8/bulk-payments/status/${hookHash}`, {
      headers: asAgent(other),
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe('not_found');
  });

  it('POST bulk-payments/search: criteria, sorting, and the entries of each bulk', async () => {
    const failed = await agent.call<{
      total: number;
      items: { status: string; payments: { amount: string }[] }[];
    }>('POST', '/api/8/bulk-payments/search', {
      headers: asAgent(),
      body: { criteria: { statuses: ['FAILED'] } },
    });
    expect(failed.body.total).toBe(1);
    expect(failed.body.items[0]!.payments.map((entry) => entry.amount)).toEqual(['1.25', '2.25']);
    const onlyFailedEntries = await agent.call<{ items: { payments: { amount: string }[] }[] }>(
      'POST',
      '/api/8/bulk-payments/search',
      { headers: asAgent(), body: { criteria: { bulkId: firstBulkId }, entryStatuses: ['FAILED'] } },
    );
    expect(onlyFailedEntries.body.items[0]!.payments.map((entry) => entry.amount)).toEqual(['3.25']);
    const bySize = await agent.call<{ items: { entries: number }[] }>('POST', '/api/8/bulk-payments/search', {
      headers: asAgent(),
      body: { sortBy: 'entries', sortDirection: 'asc', entriesLimit: 0 },
    });
    expect(bySize.body.items.map((item) => item.entries)).toEqual([1, 2, 4]);
  });
});

describe('reports', () => {
  it('active users: a payment in the period makes a user active', async () => {
    const report = await agent.call('POST', '/api/8/reports/active-users', {
      headers: asAgent(),
      body: { dateFrom: today, dateTo: today },
    });
    expect(report.status).toBe(200);
    expect(report.body).toEqual({
      dateFrom: today,
      dateTo: today,
      activeUsers: 2,
      payingUsers: 2,
      consentingUsers: 0,
      payments: 7,
      confirmedPayments: 3,
    });
    const before = await agent.call('POST', '/api/8/reports/active-users', {
      headers: asAgent(),
      body: { dateFrom: yesterday, dateTo: yesterday },
    });
    expect(before.body).toMatchObject({ activeUsers: 0, payments: 0 });
  });

  it('active users details: one line per active user, paged', async () => {
    type Details = {
      total: number;
      items: { userId: string; payments: number; confirmedPayments: number }[];
    };
    const details = await agent.call<Details>('POST', '/api/8/reports/active-users-details', {
      headers: asAgent(),
      body: { dateFrom: today, dateTo: today },
    });
    expect(details.status).toBe(200);
    expect(details.body.total).toBe(2);
    const byUser = Object.fromEntries(details.body.items.map((item) => [item.userId, item]));
    expect(byUser[agent.user.userId]).toMatchObject({ payments: 4, confirmedPayments: 3 });
    expect(byUser[user2.user.userId]).toMatchObject({ payments: 3, confirmedPayments: 0 });
    const paged = await agent.call<Details>('POST', '/api/8/reports/active-users-details', {
      headers: asAgent(),
      body: { dateFrom: today, dateTo: today, page: 2, size: 1 },
    });
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.items[0]!.userId).toBe(details.body.items[1]!.userId);
  });

  it('refuses a bad period naming the field', async () => {
    const fields = async (body: Record<string, unknown>) =>
      (
        await agent.call('POST', '/api/8/reports/active-users', { headers: asAgent(), body })
      ).body.error?.fields?.map((field) => field.field);
    expect(await fields({ dateFrom: today })).toEqual(['dateTo']);
    expect(await fields({ dateFrom: today, dateTo: yesterday })).toEqual(['dateFrom']);
    expect(await fields({ dateFrom: '2026-02-30', dateTo: today })).toEqual(['dateFrom']);
  });
});

describe('GET audit-by-bank (version 9)', () => {
  const audit = (customer: Customer, query: string, version = 9) =>
    customer.call<{
      banks: {
        bankHash: string;
        currencies: {
          currency: string;
          count: number;
          amount: string;
          confirmed: { count: number; amount: string };
          failed: { count: number; amount: string };
          waiting: { count: number; amount: string };
        }[];
      }[];
    }>('GET', `/api/${version}/audit-by-bank${query}`, { headers: asAgent(customer) });

  it('counts and sums the agent’s own payments per bank and currency', async () => {
    const answer = await audit(agent, `?dateFrom=${today}&dateTo=${today}`);
    expect(answer.status).toBe(200);
    expect(answer.body.banks).toEqual([
      {
        bankHash: bankHash('bank-a'),
        bankName: expect.any(String),
        currencies: [
          {
            currency: 'BGN',
            count: 7,
            amount: '15.75',
            confirmed: { count: 3, amount: '7.75' },
            failed: { count: 3, amount: '6.75' },
            waiting: { count: 1, amount: '1.25' },
          },
        ],
      },
    ]);
    const theirs = await audit(other, `?dateFrom=${today}&dateTo=${today}`);
    expect(theirs.body.banks[0]!.currencies[0]).toMatchObject({ count: 1, amount: '1.25' });
    expect((await audit(agent, `?dateFrom=${yesterday}&dateTo=${yesterday}`)).body.banks).toEqual([]);
  });

  it('requires both dates in order, and exists only in version 9', async () => {
    const fieldsOf = async (query: string) =>
      (await audit(agent, query)).body as unknown as { error?: { fields?: { field: string }[] } };
    expect((await fieldsOf('')).error?.fields?.map((field) => field.field).sort()).toEqual([
      'dateFrom',
      'dateTo',
    ]);
    expect((await fieldsOf(`?dateFrom=${today}`)).error?.fields?.map((field) => field.field)).toEqual([
      'dateTo',
    ]);
    expect(
      (await fieldsOf(`?dateFrom=${today}&dateTo=${yesterday}`)).error?.fields?.map((f) => f.field),
    ).toEqual(['dateFrom']);
    expect((await audit(agent, `?dateFrom=${today}&dateTo=${today}`, 8)).status).toBe(404);
    const anonymous = await agent.call('GET', `/api/9/audit-by-bank?dateFrom=${today}&dateTo=${today}`);
    expect(anonymous.status).toBe(401);
  });
});
