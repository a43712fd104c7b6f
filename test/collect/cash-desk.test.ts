import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sealClearRecipientIds } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectDeskOperations, collectDeskOperators } from '../../db/schema/collect-desk.ts';
import { collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  type Desk,
  type Merchant,
  newOperator,
  notificationsAbout,
  openDesk,
  orderPayout,
  RECIPIENT,
  registerBill,
} from './desk-client.ts';
import { expTimeIn } from './epay-client.ts';

/**
 * Cash desks (decision 0030) through the desk API, as a desk's own software drives it from another
 * process: operators created by the platform operator, log-in, look-up, payments of obligations and
 * billing IDNs, payouts after the identity check, receipts, idempotency, two desks racing for one
 * IDN, and the access rules.
 */

const ADMIN_TOKEN = 'admin-token-for-the-cash-desk-tests-0123456789';
let platform: TestPlatform;
let merchant: Merchant;
let desk: Desk;
let otherDesk: Desk;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  merchant = await platform.createSandboxMerchant({ name: 'Lender' });
  desk = await openDesk(platform, await newOperator(platform));
  otherDesk = await openDesk(platform, await newOperator(platform, 'atm'));
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const readRow = async (idn: string) =>
  (await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn)))[0];

const api = (path: string) => `${platform.collectUrl}/desk/api${path}`;

/** The merchant was told exactly once that the invoice is PAID (and nothing else about it). */
async function notifiedOncePaid(invoice: string) {
  await eventually(
    async () => (notificationsAbout(platform, merchant, invoice).length > 0 ? true : undefined),
    20_000,
    `the notification of ${invoice}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // a duplicate would arrive within this
  const posts = notificationsAbout(platform, merchant, invoice);
  expect(posts).toHaveLength(1);
  const line = posts[0]!.lines.find((candidate) => candidate.invoice === invoice);
  expect(line?.status).toBe('PAID');
  return line!;
}

describe('operators', () => {
  it('the platform operator creates one over the admin API; only a scrypt hash of its password is kept', async () => {
    const login = `sofia-${randomUUID().slice(0, 8)}`;
    const create = (body: Record<string, unknown>, token = ADMIN_TOKEN) =>
      fetch(`${platform.apiUrl}/admin/collect/desk-operators`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await create({ login, name: 'Maria', officeId: '000777' }, 'wrong')).status).toBe(401);
    const badOffice = await create({ login, name: 'Maria', officeId: '77' });
    expect(badOffice.status).toBe(400);
    expect(JSON.stringify(await badOffice.json())).toContain('officeId');

    const created = await create({ login, name: 'Maria', officeId: '000777', officeKind: 'atm' });
    expect(created.status).toBe(201);
    const operator = (await created.json()) as {
      id: string;
      password: string;
      officeId: string;
      officeKind: string;
    };
    expect(operator).toMatchObject({ officeId: '000777', officeKind: 'atm' });
    expect(operator.password.length).toBeGreaterThanOrEqual(12);
    const [row] = await platform.db
      .select()
      .from(collectDeskOperators)
      .where(eq(collectDeskOperators.id, operator.id));
    expect(row?.passwordHash).toMatch(/^scrypt\$/);
    expect(row?.passwordHash).not.toContain(operator.password);

    const again = await create({ login, name: 'Maria', officeId: '000777' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('desk_operator_exists');

    const atm = await openDesk(platform, { login, password: operator.password });
    expect(atm.officeId).toBe('000777');
  });
});

/** Every documented operation of the desk API but the log-in, from the gateway's OpenAPI document. */
async function deskApiOperations() {
  const document = (await (await fetch(`${platform.collectUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/desk/api/') && path !== '/desk/api/sessions')
    .flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({
        method: method.toUpperCase(),
        path: path.slice('/desk/api'.length),
      })),
    );
  expect(operations.length).toBeGreaterThanOrEqual(6);
  return operations;
}

describe('authentication', () => {
  it('no, wrong or revoked credentials are 401 before anything is read or done', async () => {
    const { idn } = await registerBill(platform, merchant);
    const attempts: [string, Record<string, string>][] = [
      ['no header', {}],
      ['bad token', { authorization: 'Bearer dsk_forged' }],
      ['basic scheme', { authorization: 'Basic ZGVzazpwdw==' }],
    ];
    for (const [what, headers] of attempts) {
      for (const { method, path } of await deskApiOperations()) {
        const body = method === 'GET' || method === 'DELETE' ? undefined : '{not json';
        const response = await fetch(
          api(path.replace('{idn}', idn).replace('{receipt}', '000101-0000000001')),
          {
            method,
            headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body,
          },
        );
        expect(response.status, `${what}: ${method} ${path}`).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    }
    expect((await readRow(idn))?.status).toBe('PENDING');

    const wrongPassword = await fetch(api('/sessions'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'nobody-here', password: 'not-the-password' }),
    });
    expect(wrongPassword.status).toBe(401);

    // Logging out ends the token at once.
    const operator = await newOperator(platform);
    const session = await openDesk(platform, operator);
    expect((await session.lookUp(idn)).status).toBe(200);
    const logout = await fetch(api('/sessions/current'), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(logout.status).toBe(204);
    expect((await session.lookUp(idn)).status).toBe(401);
  });

  it('bad input is 400 naming the field', async () => {
    const lookUp = await desk.lookUp('12345');
    expect(lookUp.status).toBe(400);
    expect(JSON.stringify(lookUp.body)).toContain('"field":"idn"');

    const noKey = await fetch(api('/payments'), {
      method: 'POST',
      headers: { authorization: `Bearer ${desk.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ idn: '1234567890' }),
    });
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(await noKey.json())).toContain('"field":"idempotency-key"');

    const payout = await desk.payOut('1234567890', { recipientId: '', recipientName: 'Ivan Petrov' });
    expect(payout.status).toBe(400);
    expect(payout.body.error?.fields?.map((field) => field.field)).toEqual(['recipientId']);

    const malformed = await fetch(api('/payments'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${desk.token}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: '{"idn":',
    });
    expect(malformed.status).toBe(400);

    expect((await desk.pay('0000000000')).status).toBe(404);
  });
});

describe('payments of obligations', () => {
  it('an office bill: looked up, paid with the desk STAN and BCODE, a receipt, the merchant notified once', async () => {
    const { idn, invoice } = await registerBill(platform, merchant, { AMOUNT: '22.80' });
    const found = await desk.lookUp(idn);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      type: 'obligation',
      kind: 'office_bill',
      action: 'payment',
      status: 'PENDING',
      amount: '22.80',
      amountMinor: 2280,
      invoice,
    });

    const key = randomUUID();
    const paid = await desk.pay(idn, key);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const receipt = paid.body.receipt;
    expect(paid.body.replayed).toBe(false);
    expect(receipt.receipt).toMatch(new RegExp(`^${desk.officeId}-\\d{10}$`));
    const sequence = Number(receipt.receipt.split('-')[1]);
    expect(receipt).toMatchObject({
      status: 'PAID',
      idn,
      invoice,
      amount: '22.80',
      stan: String(sequence % 1_000_000).padStart(6, '0'),
      bcode: desk.officeId,
      officeId: desk.officeId,
      operatorId: desk.operatorId,
    });
    expect(await readRow(idn)).toMatchObject({ status: 'PAID', stan: receipt.stan, bcode: receipt.bcode });

    // The same request again: the same receipt, nothing done twice.
    const replay = await desk.pay(idn, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ receipt, replayed: true });
    // A new request for the paid IDN: refused, whichever desk asks.
    for (const who of [desk, otherDesk]) {
      const again = await who.pay(idn);
      expect(again.status).toBe(409);
      expect(again.body.error?.code).toBe('already_paid');
    }
    const line = await notifiedOncePaid(invoice);
    expect(line).toMatchObject({ stan: receipt.stan, bcode: receipt.bcode, payTime: receipt.payTime });
  });

  it('a payout is not paid as a bill, and a bill is not paid out', async () => {
    const payout = await orderPayout(platform, merchant);
    const asBill = await desk.pay(payout.idn);
    expect(asBill.status).toBe(409);
    expect(asBill.body.error?.code).toBe('wrong_kind');
    const bill = await registerBill(platform, merchant);
    const asPayout = await desk.payOut(bill.idn, RECIPIENT);
    expect(asPayout.status).toBe(409);
    expect(asPayout.body.error?.code).toBe('wrong_kind');
    expect((await readRow(payout.idn))?.status).toBe('PENDING');
    expect((await readRow(bill.idn))?.status).toBe('PENDING');
  });

  it('a key reused for another request is refused', async () => {
    const key = randomUUID();
    const first = await registerBill(platform, merchant);
    const second = await registerBill(platform, merchant);
    expect((await desk.pay(first.idn, key)).status).toBe(201);
    const reused = await desk.pay(second.idn, key);
    expect(reused.status).toBe(422);
    expect(reused.body.error?.code).toBe('idempotency_key_reused');
    expect((await readRow(second.idn))?.status).toBe('PENDING');
  });
});

describe('payouts', () => {
  it('paid out with the registered identity (name compared sensibly): PAID, 000000, one notification', async () => {
    const { idn, invoice } = await orderPayout(platform, merchant);
    const found = await desk.lookUp(idn);
    expect(found.body).toMatchObject({ kind: 'payout_office', action: 'payout', amount: '150.00' });
    // The registered recipient is not shown to the desk.
    expect(JSON.stringify(found.body)).not.toContain(RECIPIENT.recipientId);
    expect(JSON.stringify(found.body)).not.toContain('Petrov');

    const paid = await desk.payOut(idn, {
      recipientId: RECIPIENT.recipientId,
      recipientName: '  IVAN   petrov ',
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.receipt).toMatchObject({
      status: 'PAID',
      operation: 'payout',
      stan: '000000',
      bcode: '000000',
    });
    expect(await readRow(idn)).toMatchObject({ status: 'PAID', stan: '000000', bcode: '000000' });
    await notifiedOncePaid(invoice);
  });

  it('the recipient id (a national id) is stored sealed, never in clear; the desk check still opens it', async () => {
    const { idn } = await orderPayout(platform, merchant);
    const row = await readRow(idn);
    expect(JSON.stringify(row)).not.toContain(RECIPIENT.recipientId);
    expect(row?.details.recipientIdSealed).toMatch(/^v1\./);
    expect(row?.details.recipientName).toBe(RECIPIENT.recipientName);
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
  });

  it('a recipient id an older release kept in clear is sealed by the start-up backfill', async () => {
    const { idn } = await orderPayout(platform, merchant);
    const { recipientIdSealed: _, ...rest } = (await readRow(idn))?.details ?? {};
    await platform.db
      .update(collectObligations)
      .set({ details: { ...rest, recipientId: RECIPIENT.recipientId } })
      .where(eq(collectObligations.idn, idn));
    expect(
      await sealClearRecipientIds(platform.db, collectSecretKey(platform.config)),
    ).toBeGreaterThanOrEqual(1);
    const row = await readRow(idn);
    expect(JSON.stringify(row)).not.toContain(RECIPIENT.recipientId);
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
  });

  it('refused with a wrong identity, without saying what is registered; recorded with the operator', async () => {
    const { idn } = await orderPayout(platform, merchant);
    for (const identity of [
      { recipientId: '8001011235', recipientName: RECIPIENT.recipientName },
      { recipientId: RECIPIENT.recipientId, recipientName: 'Ivan Petrova' },
      { recipientId: ` ${RECIPIENT.recipientId.toLowerCase()}x`, recipientName: 'Petrov Ivan' },
    ]) {
      const refused = await desk.payOut(idn, identity);
      expect(refused.status).toBe(422);
      expect(refused.body.error?.code).toBe('identity_mismatch');
      expect(JSON.stringify(refused.body)).not.toContain(RECIPIENT.recipientId);
      expect(JSON.stringify(refused.body)).not.toContain('Ivan Petrov"');
    }
    expect((await readRow(idn))?.status).toBe('PENDING');
    const recorded = await platform.db
      .select()
      .from(collectDeskOperations)
      .where(eq(collectDeskOperations.idn, idn));
    expect(recorded).toHaveLength(3);
    expect(recorded.every((row) => row.state === 'refused' && row.operatorId === desk.operatorId)).toBe(true);
    // The right identity still works afterwards.
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
  });

  it('EXPIRED when not collected in time, and refused at the desk afterwards', async () => {
    const { idn, invoice } = await orderPayout(platform, merchant, { EXP_TIME: expTimeIn(2_000) });
    await eventually(
      async () => ((await readRow(idn))?.status === 'EXPIRED' ? true : undefined),
      20_000,
      'expiry',
    );
    const late = await desk.payOut(idn, RECIPIENT);
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('expired');
    expect((await desk.lookUp(idn)).body).toMatchObject({ status: 'EXPIRED', action: 'none' });
    await eventually(
      async () => (notificationsAbout(platform, merchant, invoice).length > 0 ? true : undefined),
      20_000,
      'the EXPIRED notification',
    );
    const posts = notificationsAbout(platform, merchant, invoice);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.lines.find((line) => line.invoice === invoice)?.status).toBe('EXPIRED');
  });

  it('never paid twice: two desks (and repeated requests) racing for one IDN, one receipt', async () => {
    const { idn, invoice } = await orderPayout(platform, merchant);
    const keyA = randomUUID();
    const replies = await Promise.all([
      desk.payOut(idn, RECIPIENT, keyA),
      otherDesk.payOut(idn, RECIPIENT),
      desk.payOut(idn, RECIPIENT, keyA),
      otherDesk.payOut(idn, RECIPIENT),
      desk.payOut(idn, RECIPIENT),
    ]);
    const receipts = new Set(
      replies
        .filter((reply) => reply.status === 200 || reply.status === 201)
        .map((reply) => reply.body.receipt.receipt),
    );
    expect(receipts.size).toBe(1);
    for (const reply of replies) {
      if (reply.status >= 300) {
        expect(reply.status).toBe(409);
        expect(reply.body.error?.code).toBe('already_paid');
      }
    }
    const completed = await platform.db
      .select()
      .from(collectDeskOperations)
      .where(eq(collectDeskOperations.idn, idn));
    expect(completed.filter((row) => row.state === 'completed')).toHaveLength(1);
    await notifiedOncePaid(invoice);
  });

  it('office bills raced by two desks: one PAID, one refused', async () => {
    const { idn } = await registerBill(platform, merchant);
    const [a, b] = await Promise.all([desk.pay(idn), otherDesk.pay(idn)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect([a, b].find((reply) => reply.status === 409)?.body.error?.code).toBe('already_paid');
  });
});

describe('billing IDNs', () => {
  it("the desk asks the merchant's billing system what is due, pays it, and the merchant gets /pay/confirm", async () => {
    const billing = await platform.createSandboxMerchant({ billingIdnPrefix: '95' });
    const idn = `95${'1'.padStart(8, '0')}`;
    const due = await desk.lookUp(idn);
    expect(due.status, JSON.stringify(due.body)).toBe(200);
    expect(due.body).toMatchObject({
      type: 'billing',
      action: 'payment',
      amount: '25.00',
      shortDesc: 'Electricity, May',
    });
    const key = randomUUID();
    const paid = await desk.pay(idn, key);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.receipt).toMatchObject({
      operation: 'billing_payment',
      amount: '25.00',
      merchantMin: billing.min,
    });
    expect(String(paid.body.receipt.tid)).toMatch(new RegExp(`^\\d{20}${desk.officeId}$`));
    await eventually(
      async () => (platform.sandbox.merchant.customer(billing.min, idn)?.paid ? true : undefined),
      20_000,
      'the /pay/confirm',
    );
    expect((await desk.pay(idn, key)).body).toEqual({ receipt: paid.body.receipt, replayed: true });
    // The desk's cash is in the ledger, with the operator and the receipt it handed out.
    const [posted] = await platform.db
      .select({ detail: collectLedgerTransactions.detail })
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.key, `billing:${paid.body.receipt.tid}`));
    expect(posted?.detail).toEqual({
      source: {
        channel: 'cash_desk',
        officeId: desk.officeId,
        operatorId: desk.operatorId,
        receipt: paid.body.receipt.receipt,
      },
    });
    // Nothing is due any more: the merchant says so (62).
    const again = await otherDesk.pay(idn);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('billing_no_obligation');
  });
});

describe('records', () => {
  it("an operator sees its own operations and receipts, never another's", async () => {
    const { idn } = await registerBill(platform, merchant);
    const paid = await desk.pay(idn);
    const receipt = paid.body.receipt.receipt;
    const own = await desk.get(`/operations/${receipt}`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ receipt, state: 'completed', idn });
    const foreign = await otherDesk.get(`/operations/${receipt}`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain(idn);

    const mine = (await desk.get('/operations?limit=500')).body as { operations: { receipt: string }[] };
    expect(mine.operations.map((operation) => operation.receipt)).toContain(receipt);
    const theirs = (await otherDesk.get('/operations?limit=500')).body as {
      operations: { receipt: string }[];
    };
    expect(theirs.operations.map((operation) => operation.receipt)).not.toContain(receipt);
    expect(theirs.operations.every((operation) => operation.receipt.startsWith(otherDesk.officeId))).toBe(
      true,
    );
  });
});
