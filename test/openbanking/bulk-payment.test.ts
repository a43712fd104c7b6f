import { eq } from 'drizzle-orm';
import { compactVerify, createRemoteJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { endToEndIdOf } from '../../domain/openbanking/bulk-payments.ts';
import { hookCallJws } from '../../domain/openbanking/hook-events.ts';
import { bulksOf } from '../../sandbox/openbanking/bulk-payments.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { enrolUser } from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  amountMinorOf,
  authorise,
  bulkOnceFinal,
  creditorIban,
  DEBTOR_IBAN,
  entries,
  ledgerOf,
  readBulk,
  startBulk,
} from './bulk-helpers.ts';
import { addAccounts, bankHash, type Customer, newCustomer } from './consent-helpers.ts';

/**
 * Bulk payments end to end over HTTP against a sandbox bank: one SCA for the whole bulk at the bank's
 * page, entries rejected by the bank while the others are booked, per-entry and overall statuses, the
 * bank's ledger as the witness of every debit, a repeated request that starts nothing, and bad input.
 */

let platform: TestPlatform;
let customer: Customer;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { OPENBANKING_BULK_BATCH_SIZE: '100', OPENBANKING_BULK_POLL_INTERVAL: '200ms' },
  });
  customer = await newCustomer(platform, 'Bulk agent');
  ledgerOf(platform).setBalance(DEBTOR_IBAN, 1_000_000_000);
  hooks = await startReceiver();
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

describe('a bulk of 1,000 entries, some rejected by the bank', () => {
  it('books every other entry once and reports each entry and the whole bulk', async () => {
    const ledger = ledgerOf(platform);
    // The bank rejects payments to two of the 50 creditors: 2 × 20 = 40 entries.
    const rejected = new Set([creditorIban(7), creditorIban(31)]);
    for (const iban of rejected) ledger.setBehaviour(iban, { kind: 'reject' });
    const debitsBefore = ledger.debits(DEBTOR_IBAN).length;

    const started = await startBulk(customer, { payments: entries(1000) });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body).toMatchObject({ status: 'AWAITING_SCA', entries: 1000, repeated: false });
    expect(started.body.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Nothing is debited before the user authorises the bulk.
    expect(ledger.debits(DEBTOR_IBAN).length).toBe(debitsBefore);

    await authorise(started.body.scaRedirectUrl!);
    const bulk = await bulkOnceFinal(customer, started.body.bulkId);

    expect(bulk).toMatchObject({
      status: 'PARTIALLY_CONFIRMED',
      entries: 1000,
      confirmed: 960,
      failed: 40,
      waiting: 0,
    });
    expect(bulk.payments).toHaveLength(1000);
    for (const entry of bulk.payments) {
      const isRejected = rejected.has(entry.creditorIban);
      expect(entry.status, `entry ${entry.bulkSeq}`).toBe(isRejected ? 'FAILED' : 'CONFIRMED');
      expect(entry.state).toBe(isRejected ? 'REJECTED' : 'EXECUTED');
      expect(entry.bankTransactionStatus).toBe(isRejected ? 'RJCT' : 'ACSC');
      if (isRejected) expect(entry.statusReason).toContain('AC04');
      expect(entry.amount).toBe(`${(entry.bulkSeq % 9) + 1}.25`);
    }
    expect(bulk.payments.map((entry) => entry.bulkSeq)).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    // The ledger: exactly one debit per confirmed entry, none for a rejected one, the amounts right.
    const debits = ledger.debits(DEBTOR_IBAN).slice(debitsBefore);
    expect(debits).toHaveLength(960);
    const debited = new Map(debits.map((debit) => [debit.paymentId, debit.amountMinor]));
    for (const entry of bulk.payments) {
      const debit = debited.get(endToEndIdOf(entry.code));
      if (entry.status === 'CONFIRMED') expect(debit).toBe(amountMinorOf(entry.bulkSeq));
      else expect(debit).toBeUndefined();
    }
    for (const iban of rejected) ledger.setBehaviour(iban, { kind: 'normal' });
  });

  it('keeps the bulk’s workflow history small: ids and batch cursors only', async () => {
    const [row] = await platform.db.select().from(obBulkPayments).limit(1);
    const history = await platform.client.workflow.getHandle(`ob-bulk-${row!.id}`).fetchHistory();
    // 10 batches of 100: a few events per batch, nowhere near one per entry.
    expect(history.events!.length).toBeLessThan(200);
  });
});

describe('SCA of a bulk', () => {
  it('approved once at the bank: the browser goes to the hook’s redirectUrl, the hook gets one signed event', async () => {
    const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: { 'x-agent-hash': customer.agentHash },
      body: { url: `${hooks.url}/bulk` },
    });
    const redirect = await customer.call(
      'PUT',
      `/api/8/redirect?hookhash=${hook.body.hookHash}&redirectUrl=${encodeURIComponent('https://agent.example.com/done')}`,
      { headers: { 'x-agent-hash': customer.agentHash } },
    );
    expect(redirect.status).toBe(200);
    const started = await startBulk(customer, { payments: entries(2), hookHash: hook.body.hookHash });
    expect(started.status).toBe(201);
    const { submitted } = await driveSca(started.body.scaRedirectUrl!, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
      submit: true,
    });
    expect(submitted!.status).toBe(303);
    expect(submitted!.headers.get('location')).toBe(
      `https://agent.example.com/done?state=${started.body.state}`,
    );

    const call = await eventually(async () =>
      hooks.requests.find(
        (request) =>
          request.path.startsWith('/hooks/bulk?') &&
          new URL(request.path, hooks.url).searchParams.get('state') === started.body.state,
      ),
    );
    const jwks = createRemoteJWKSet(new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`));
    const { payload } = await compactVerify(hookCallJws(call.body), jwks);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      type: 'payment.finished',
      bulkId: started.body.bulkId,
      state: started.body.state,
      status: 'CONFIRMED',
      entries: 2,
      confirmed: 2,
      failed: 0,
    });
    const status = await customer.call<{ bulks: { bulkId: string; status: string }[] }>(
      'GET',
      `/api/8/bulk-payments/status/${hook.body.hookHash}`,
      { headers: { 'x-agent-hash': customer.agentHash } },
    );
    expect(status.body.bulks).toEqual([
      expect.objectContaining({ bulkId: started.body.bulkId, status: 'CONFIRMED' }),
    ]);
  });

  it('denied at the bank: every entry FAILED, nothing debited', async () => {
    const ledger = ledgerOf(platform);
    const before = ledger.debits(DEBTOR_IBAN).length;
    const started = await startBulk(customer, { payments: entries(5) });
    expect(started.status).toBe(201);
    await authorise(started.body.scaRedirectUrl!, 'deny');
    const bulk = await bulkOnceFinal(customer, started.body.bulkId);
    expect(bulk).toMatchObject({ status: 'FAILED', confirmed: 0, failed: 5 });
    expect(bulk.reason).toContain('not authorised');
    expect(bulk.payments.every((entry) => entry.state === 'REJECTED')).toBe(true);
    expect(ledger.debits(DEBTOR_IBAN).length).toBe(before);
  });

  it('a debtor account the bank refuses: 502 bank_refused and a FAILED bulk', async () => {
    const ledger = ledgerOf(platform);
    ledger.setBehaviour(DEBTOR_IBAN, { kind: 'reject' });
    try {
      const started = await startBulk(customer, { payments: entries(3), clientReference: 'refused-1' });
      expect(started.status).toBe(502);
      expect(started.body.error?.code).toBe('bank_refused');
      // The refusal was recorded before it was answered: the retry answers the FAILED bulk.
      const again = await startBulk(customer, { payments: entries(3), clientReference: 'refused-1' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'FAILED', repeated: true, scaRedirectUrl: null });
    } finally {
      ledger.setBehaviour(DEBTOR_IBAN, { kind: 'normal' });
    }
  });
});

describe('a repeated request', () => {
  it('with the same Idempotency-Key answers the same bulk and starts no second one', async () => {
    const body = { payments: entries(3) };
    const first = await startBulk(customer, body, { idempotencyKey: 'retry-key-1' });
    expect(first.status).toBe(201);
    const second = await startBulk(customer, body, { idempotencyKey: 'retry-key-1' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ bulkId: first.body.bulkId, repeated: true, status: 'AWAITING_SCA' });
    expect(second.body.scaRedirectUrl).toBe(first.body.scaRedirectUrl);
    expect(second.body.state).toBeUndefined();
    const rows = await platform.db
      .select()
      .from(obBulkPayments)
      .where(eq(obBulkPayments.idempotencyKey, 'retry-key-1'));
    expect(rows).toHaveLength(1);

    // Authorised once, booked once, however often the request was repeated.
    const before = ledgerOf(platform).debits(DEBTOR_IBAN).length;
    await authorise(first.body.scaRedirectUrl!);
    await bulkOnceFinal(customer, first.body.bulkId);
    const third = await startBulk(customer, body, { idempotencyKey: 'retry-key-1' });
    expect(third.body).toMatchObject({ bulkId: first.body.bulkId, status: 'CONFIRMED' });
    expect(ledgerOf(platform).debits(DEBTOR_IBAN).length).toBe(before + 3);
  });

  it('with the same clientReference answers the same bulk; another body under it is 409', async () => {
    const first = await startBulk(customer, { payments: entries(2), clientReference: 'payroll-11' });
    expect(first.status).toBe(201);
    const second = await startBulk(customer, { payments: entries(2), clientReference: 'payroll-11' });
    expect(second.body).toMatchObject({ bulkId: first.body.bulkId, repeated: true });
    const other = await startBulk(customer, { payments: entries(4), clientReference: 'payroll-11' });
    expect(other.status).toBe(409);
    expect(other.body.error?.code).toBe('idempotency_conflict');
    expect(other.body.error?.fields?.[0]?.field).toBe('clientReference');
    const otherKey = await startBulk(customer, { payments: entries(4) }, { idempotencyKey: 'retry-key-1' });
    expect(otherKey.status).toBe(409);
    expect(otherKey.body.error?.fields?.[0]?.field).toBe('Idempotency-Key');
  });
});

describe('bad input names the field', () => {
  const fieldsOf = (body: { error?: { fields?: { field: string }[] } }) =>
    (body.error?.fields ?? []).map((field) => field.field);

  it('budget entries: regulatoryReportType and paymentCategory', async () => {
    const budget = (i: number) => ({
      regulatoryReportType: i === 1 ? '7' : '1',
      paymentCategory: i === 2 ? '12345' : '110000',
    });
    const answer = await startBulk(customer, { payments: entries(3, 3, budget) }, { kind: 'budget-payment' });
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer.body)).toEqual(['payments.1.regulatoryReportType', 'payments.2.paymentCategory']);
    const messages = (answer.body.error!.fields as { message: string }[]).map((field) => field.message);
    expect(messages).toEqual(['must be one of 1, 2, 3, 4, 5, 6, 9', 'must be exactly six digits']);
    const missing = await startBulk(customer, { payments: entries(1) }, { kind: 'budget-payment' });
    expect(fieldsOf(missing.body)).toEqual(['payments.0.regulatoryReportType', 'payments.0.paymentCategory']);
  });

  it('takes up to 10,000 entries in one request (a body of about 2 MB), not one more', async () => {
    const big = await startBulk(customer, { payments: entries(10_000) });
    expect(big.status, JSON.stringify(big.body).slice(0, 300)).toBe(201);
    expect(big.body.entries).toBe(10_000);
    const rows = await readBulk(customer, big.body.bulkId, 0);
    expect(rows).toMatchObject({ entries: 10_000, waiting: 10_000 });
    await authorise(big.body.scaRedirectUrl!, 'deny');
    const tooBig = await startBulk(customer, { payments: entries(10_001) });
    expect(tooBig.status).toBe(400);
    expect(fieldsOf(tooBig.body)).toEqual(['payments']);
  });

  it('entries, amounts and IBANs', async () => {
    expect(fieldsOf((await startBulk(customer, { payments: [] })).body)).toEqual(['payments']);
    const bad = entries(2);
    bad[1] = { ...bad[1]!, amount: '0.00', creditorIban: 'BG00XXXX' };
    expect(fieldsOf((await startBulk(customer, { payments: bad })).body).sort()).toEqual([
      'payments.1.amount',
      'payments.1.creditorIban',
    ]);
  });

  it('a budget bulk of valid entries is accepted and carries the budget details to the bank', async () => {
    const budget = () => ({ regulatoryReportType: 9, paymentCategory: '110000', documentNumber: 'D-1' });
    const answer = await startBulk(customer, { payments: entries(2, 2, budget) }, { kind: 'budget-payment' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const view = await readBulk(customer, answer.body.bulkId);
    expect(view.payments.map((entry) => entry.state)).toEqual(['AWAITING_SCA', 'AWAITING_SCA']);
    // At the bank: the structured remittance (category, report type) and the readable line.
    const atBank = [...bulksOf(platform.sandbox.banks.banks.get('bank-a')!).values()].find(
      (bulk) => bulk.paymentInformationId === answer.body.bulkId.replace(/^blk_/, ''),
    )!;
    expect(atBank.entries[0]).toMatchObject({
      remittanceInformationStructured: {
        reference: '110000',
        referenceType: 'BGBUDGET',
        referenceIssuer: '9',
      },
      remittanceInformationUnstructured: 'BUDGET/9/110000/D-1 Invoice 0',
    });
  });
});

describe('from an added account (bulk-payments/request, /budget-request)', () => {
  it('pays from the account the user added, with budget details', async () => {
    await addAccounts(customer, 'alice', { bankHash: bankHash('bank-a') });
    const { body } = await customer.call<{ ibans: { ibanId: string; iban: string }[] }>(
      'GET',
      '/api/8/ibans',
      {
        headers: customer.headers,
      },
    );
    const account = body.ibans.find((candidate) => candidate.iban === DEBTOR_IBAN)!;
    const budget = (i: number) => ({ regulatoryReportType: String((i % 6) + 1), paymentCategory: '442100' });
    const before = ledgerOf(platform).debits(DEBTOR_IBAN).length;
    const started = await customer.call<{ bulkId: string; scaRedirectUrl: string }>(
      'POST',
      '/api/8/bulk-payments/budget-request',
      { headers: customer.headers, body: { ibanId: account.ibanId, payments: entries(3, 3, budget) } },
    );
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await authorise(started.body.scaRedirectUrl);
    const bulk = await bulkOnceFinal(customer, started.body.bulkId);
    expect(bulk).toMatchObject({ status: 'CONFIRMED', confirmed: 3 });
    expect(ledgerOf(platform).debits(DEBTOR_IBAN).length).toBe(before + 3);
    const plain = await customer.call('POST', '/api/8/bulk-payments/request', {
      headers: customer.headers,
      body: { ibanId: account.ibanId, payments: entries(1) },
    });
    expect(plain.status).toBe(201);
  });
});

describe('ownership', () => {
  it('an added account of another user is 404; another agent sees none of the bulks', async () => {
    const other = await newCustomer(platform, 'Other agent');
    const answer = await startBulk(
      other,
      { ibanId: 'iba_000000000000000000000000', payments: entries(1) },
      {
        kind: 'request',
      },
    );
    expect(answer.status).toBe(404);
    const search = await other.call<{ total: number }>('POST', '/api/8/bulk-payments/search', {
      headers: { 'x-agent-hash': other.agentHash },
      body: {},
    });
    expect(search.status).toBe(200);
    expect(search.body.total).toBe(0);
    const mine = await customer.call<{ total: number }>('POST', '/api/8/bulk-payments/search', {
      headers: { 'x-agent-hash': customer.agentHash },
      body: {},
    });
    expect(mine.body.total).toBeGreaterThan(3);
    // A user's hash is not an agent's: the searches are the agent's.
    const asUser = await customer.call('POST', '/api/8/bulk-payments/search', {
      headers: customer.headers,
      body: {},
    });
    expect(asUser.status).toBe(401);
    // A user of the same agent may not pay from another user's added account either.
    const sibling = await enrolUser(customer.call, customer.agentHash);
    const siblingAnswer = await customer.call('POST', '/api/8/bulk-payments/request', {
      headers: { 'x-user-hash': sibling.userHash },
      body: { ibanId: 'iba_000000000000000000000000', payments: entries(1) },
    });
    expect(siblingAnswer.status).toBe(404);
  });
});
