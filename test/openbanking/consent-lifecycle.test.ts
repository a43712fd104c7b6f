import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obConsents } from '../../db/schema/openbanking.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/webhooks.ts';
import { countRead, nextRefresh } from '../../domain/openbanking/consents.ts';
import {
  consentRefreshWorkflowId,
  consentWorkflowId,
  userDeletionWorkflowId,
} from '../../domain/openbanking/processes.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  addAccounts,
  bankHash,
  type Customer,
  consentOnceSettled,
  newCustomer,
  startConsent,
} from './consent-helpers.ts';

/**
 * An ACTIVE consent after its SCA: scheduled refreshes keep the read model fresh (with a shortened
 * OPENBANKING_REFRESH_INTERVAL) until the bank says it expired or was revoked; deleting the user ends
 * its consents at the banks; the hook calls of one hook URL share one webhook endpoint.
 */

interface TransactionList {
  booked: { transactionId: string; amount: string; creditorName: string | null }[];
  pending: unknown[];
  freshness: { refreshedAt: string | null; refreshError: string | null };
}

let platform: TestPlatform;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { OPENBANKING_REFRESH_INTERVAL: '1500ms', OPENBANKING_REFRESHES_PER_RUN: '2' },
  });
  hooks = await startReceiver();
}, 60_000);
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

const sandboxBank = (code: 'bank-a' | 'bank-b' | 'bank-c') => `${platform.sandbox.banks.url}/${code}/sandbox`;

async function bankConsentIdOf(consentId: string): Promise<string> {
  const [row] = await platform.db.select().from(obConsents).where(eq(obConsents.id, consentId));
  return row!.bankConsentId!;
}

/** The sandbox bank's control: the user revokes the consent, or its validUntil passes. */
async function atTheBank(code: 'bank-b' | 'bank-c', consentId: string, action: 'revoke' | 'expire') {
  const url = `${sandboxBank(code)}/consents/${await bankConsentIdOf(consentId)}/${action}`;
  expect((await fetch(url, { method: 'POST' })).status).toBe(204);
}

async function firstAccount(customer: Customer) {
  const { body } = await customer.call<{ ibans: { ibanId: string; iban: string }[] }>('GET', '/api/8/ibans', {
    headers: customer.headers,
  });
  return body.ibans[0]!;
}

/** Every run of a workflow id, newest first (continue-as-new makes a chain of runs). */
async function runsOf(workflowId: string) {
  const runs = [];
  for await (const run of platform.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
    runs.push(run);
  return runs;
}

describe('scheduled refreshes of an ACTIVE consent', () => {
  it('a transaction booked at the bank appears in the read model without any API call; runs continue as new', async () => {
    const customer = await newCustomer(platform);
    const { started } = await addAccounts(customer, 'bob', {
      bankHash: bankHash('bank-a'),
      frequencyPerDay: 50,
    });
    const account = await firstAccount(customer);
    const before = await customer.call<TransactionList>('GET', `/api/8/transactions/${account.ibanId}`, {
      headers: customer.headers,
    });
    expect(before.body.booked.length + before.body.pending.length).toBe(25);

    const booked = await fetch(`${sandboxBank('bank-a')}/accounts/${account.iban}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '-42.10', counterpartyName: 'Corner Shop' }),
    });
    expect(booked.status).toBe(201);
    const { transaction } = (await booked.json()) as { transaction: { transactionId: string } };

    // Only reads of the read model from here on: the refresh workflow brings the transaction in.
    const after = await eventually(
      async () => {
        const { body } = await customer.call<TransactionList>(
          'GET',
          `/api/8/transactions/${account.ibanId}`,
          {
            headers: customer.headers,
          },
        );
        return body.booked.some((entry) => entry.transactionId === transaction.transactionId)
          ? body
          : undefined;
      },
      20_000,
      'the booked transaction in the read model',
    );
    expect(after.booked.find((entry) => entry.transactionId === transaction.transactionId)).toMatchObject({
      amount: '-42.10',
      creditorName: 'Corner Shop',
    });
    // The account says when the bank was read (a fresh read: the answer above may carry the freshness
    // read just before the refresh that brought the transaction).
    const { body: listed } = await customer.call<{ ibans: { freshness: TransactionList['freshness'] }[] }>(
      'GET',
      '/api/8/ibans',
      { headers: customer.headers },
    );
    expect(listed.ibans[0]!.freshness.refreshError).toBeNull();
    expect(Date.parse(listed.ibans[0]!.freshness.refreshedAt!)).toBeGreaterThan(
      Date.parse(before.body.freshness.refreshedAt!),
    );

    // OPENBANKING_REFRESHES_PER_RUN=2: the history is cut into runs by continue-as-new.
    // Visibility lists the runs with a lag: the continued run may show before its successor does.
    const runs = await eventually(
      async () => {
        const found = await runsOf(consentRefreshWorkflowId(started.consentId));
        const statuses = found.map((run) => run.status.name);
        return statuses.includes('CONTINUED_AS_NEW') && statuses.includes('RUNNING') ? found : undefined;
      },
      20_000,
      'a continued-as-new run and the run it continued as',
    );
    expect(runs.some((run) => run.status.name === 'RUNNING')).toBe(true);
  });

  it('the user revokes the consent at the bank: the next refresh ends it REVOKED, no second hook call', async () => {
    const customer = await newCustomer(platform);
    const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: customer.headers,
      body: { url: `${hooks.url}/revoked` },
    });
    const { started } = await addAccounts(customer, 'carol', {
      bankHash: bankHash('bank-b'),
      hookHash: hook.body.hookHash,
      frequencyPerDay: 50,
    });
    const calls = () =>
      hooks.requests.filter((request) => request.path.includes(encodeURIComponent(started.state)));
    await eventually(async () => (calls().length === 1 ? true : undefined));

    await atTheBank('bank-b', started.consentId, 'revoke');

    const token = await consentOnceSettled(customer, started.consentId, (seen) => seen.status === 'REVOKED');
    expect(token.bankStatus).toBe('revokedByPsu');
    const refreshes = platform.client.workflow.getHandle(consentRefreshWorkflowId(started.consentId));
    expect(await refreshes.result()).toBe('REVOKED');

    // The reads keep answering the last data, and say why it no longer changes.
    const account = await firstAccount(customer);
    const transactions = await customer.call<TransactionList>(
      'GET',
      `/api/8/transactions/${account.ibanId}`,
      {
        headers: customer.headers,
      },
    );
    expect(transactions.status).toBe(200);
    expect(transactions.body.booked.length + transactions.body.pending.length).toBe(120);
    expect(transactions.body.freshness.refreshError).toBe('consent_invalid');
    // The hook was called when the consent flow finished, not again (docs: "Consent states").
    expect(calls()).toHaveLength(1);
  });

  it('the bank expires the consent: the next refresh ends it EXPIRED', async () => {
    const customer = await newCustomer(platform);
    const { started } = await addAccounts(customer, 'dan', {
      bankHash: bankHash('bank-c'),
      frequencyPerDay: 50,
    });
    await atTheBank('bank-c', started.consentId, 'expire');
    const token = await consentOnceSettled(customer, started.consentId, (seen) => seen.status === 'EXPIRED');
    expect(token.bankStatus).toBe('expired');
    expect(
      await platform.client.workflow.getHandle(consentRefreshWorkflowId(started.consentId)).result(),
    ).toBe('EXPIRED');
  });
});

describe('the refresh schedule (pure rules)', () => {
  const HOUR = 3_600_000;
  const at = (iso: string) => Date.parse(iso);

  it('every interval, never more reads a UTC day than frequencyPerDay, and not past validUntil', () => {
    const base = { intervalMs: 6 * HOUR, frequencyPerDay: 4, validUntil: '2027-02-21' };
    // The SCA read at 01:00 and three refreshes: the fourth of the day is still allowed.
    let reads = { day: '2027-01-10', reads: 1 };
    expect(nextRefresh({ ...base, nowMs: at('2027-01-10T01:00:00Z'), reads })).toEqual({
      refreshAt: at('2027-01-10T07:00:00Z'),
    });
    reads = countRead(
      countRead(countRead(reads, at('2027-01-10T07:00:00Z')), at('2027-01-10T13:00:00Z')),
      at('2027-01-10T17:00:00Z'),
    );
    expect(reads).toEqual({ day: '2027-01-10', reads: 4 });
    // Four reads today: the next waits for midnight UTC, however short the interval.
    expect(nextRefresh({ ...base, intervalMs: HOUR, nowMs: at('2027-01-10T17:00:00Z'), reads })).toEqual({
      refreshAt: at('2027-01-11T00:00:00Z'),
    });
    // A new day starts a new count.
    expect(countRead(reads, at('2027-01-11T00:00:00Z'))).toEqual({ day: '2027-01-11', reads: 1 });
    // The last day: what would come after its end is the consent's expiry instead.
    expect(
      nextRefresh({ ...base, nowMs: at('2027-02-21T20:00:00Z'), reads: { day: '2027-02-21', reads: 1 } }),
    ).toEqual({ expiresAt: at('2027-02-22T00:00:00Z') });
  });
});

describe('DELETE agent/user ends the user’s consents', () => {
  it('ACTIVE and waiting consents are ended at their banks (TERMINATED), durably, refreshes stop', async () => {
    const customer = await newCustomer(platform);
    const active = await addAccounts(customer, 'bob', { bankHash: bankHash('bank-a'), frequencyPerDay: 50 });
    const second = await addAccounts(customer, 'carol', {
      bankHash: bankHash('bank-b'),
      frequencyPerDay: 50,
    });
    const waiting = await startConsent(customer, { bankHash: bankHash('bank-c') });
    const bankConsents = {
      'bank-a': await bankConsentIdOf(active.started.consentId),
      'bank-b': await bankConsentIdOf(second.started.consentId),
      'bank-c': await bankConsentIdOf(waiting.consentId),
    };

    const deleted = await customer.call('DELETE', '/api/8/agent/user', {
      headers: { 'x-agent-hash': customer.agentHash, 'x-user-hash': customer.user.userHash },
    });
    expect(deleted.status).toBe(204);
    // At once: the user's hash is refused.
    expect((await customer.call('GET', '/api/8/ibans', { headers: customer.headers })).status).toBe(401);

    const deletion = platform.client.workflow.getHandle(userDeletionWorkflowId(customer.user.userId));
    expect(await deletion.result()).toBe(3);
    const rows = await platform.db
      .select()
      .from(obConsents)
      .where(eq(obConsents.userId, customer.user.userId));
    expect(rows.map((row) => [row.status, row.bankStatus, row.statusReason])).toEqual(
      rows.map(() => ['TERMINATED', 'terminatedByTpp', 'its user was deleted (DELETE agent/user)']),
    );
    expect(rows).toHaveLength(3);
    // The banks agree: each bank consent was ended by the gateway.
    for (const [code, consentId] of Object.entries(bankConsents)) {
      const consent = platform.sandbox.banks.banks.get(code)!.consents.get(consentId)!;
      expect(consent.status, code).toBe('terminatedByTpp');
    }
    // The consent waiting for SCA stopped waiting; the ACTIVE ones stopped refreshing.
    expect(await platform.client.workflow.getHandle(consentWorkflowId(waiting.consentId)).result()).toBe(
      'TERMINATED',
    );
    for (const { started } of [active, second])
      expect(
        await platform.client.workflow.getHandle(consentRefreshWorkflowId(started.consentId)).result(),
      ).toBe('TERMINATED');
  });
});

describe('hook calls and webhook endpoints', () => {
  it('two consents of one hook share one endpoint; each call carries its own state', async () => {
    const customer = await newCustomer(platform);
    const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: customer.headers,
      body: { url: `${hooks.url}/shared?source=gateway` },
    });
    const first = await addAccounts(customer, 'bob', {
      bankHash: bankHash('bank-a'),
      hookHash: hook.body.hookHash,
    });
    const second = await addAccounts(customer, 'dan', {
      bankHash: bankHash('bank-c'),
      hookHash: hook.body.hookHash,
    });

    const calls = await eventually(async () => {
      const found = hooks.requests.filter((request) => request.path.startsWith('/hooks/shared?'));
      return found.length === 2 ? found : undefined;
    });
    const params = calls.map((call) => new URL(call.path, hooks.url).searchParams);
    expect(params.map((query) => query.get('state')).sort()).toEqual(
      [first.started.state, second.started.state].sort(),
    );
    expect(params.every((query) => query.get('source') === 'gateway')).toBe(true);

    const endpoints = await platform.db
      .select()
      .from(webhookEndpoints)
      .where(
        and(eq(webhookEndpoints.service, 'openbanking'), eq(webhookEndpoints.ownerId, customer.agentId)),
      );
    expect(endpoints.map((endpoint) => endpoint.url)).toEqual([`${hooks.url}/shared?source=gateway`]);
    const deliveries = await platform.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoints[0]!.id));
    expect(deliveries.map((delivery) => delivery.subjectId).sort()).toEqual(
      [first.started.consentId, second.started.consentId].sort(),
    );
  });
});
