import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settleCredit } from '../../db/collect/statement-settlement.ts';
import { collectLedgerEntries, collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import { collectStatementCredits } from '../../db/schema/collect-statements.ts';
import { merchantNotificationsWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type CamtEntry, camt053, camt054 } from './camt-builder.ts';
import { envelopedNotification, germanBatchDay, nordicDay } from './camt-samples.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from './epay-client.ts';
import { obligationRow, statusHistory } from './read-model.ts';

/**
 * Bank statements (decision 0031): camt.053/054 documents uploaded by an operator or dropped in the
 * watched folder settle the obligations their credits name, each once; the rest wait in review.
 */

const ADMIN_TOKEN = 'admin-token-for-statement-tests-0123456789';
/** Above the platform's 1 MiB body limit: statement uploads have their own (api/app.ts). */
const MAX_BYTES = 3 * 1024 * 1024;
let platform: TestPlatform;
let merchant: { min: string; secret: string };
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'statements-'));
  platform = await startTestPlatform({
    env: {
      ADMIN_TOKEN,
      COLLECT_STATEMENT_DIR: folder,
      COLLECT_STATEMENT_POLL_INTERVAL: '200ms',
      COLLECT_STATEMENT_MAX_BYTES: String(MAX_BYTES),
    },
  });
  merchant = await platform.createSandboxMerchant();
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
  await rm(folder, { recursive: true, force: true });
});

// --- the merchant's side: obligations and their notifications -------------------------------------

interface Registered {
  idn: string;
  invoice: string;
}

/** A deposit slip (the payer writes the IDN on the transfer) or an office bill, of `amount` BGN. */
async function register(
  amount: string,
  path = '/office/reg_vnbel.cgi',
  expiresInMs = 86_400_000,
  currency = 'BGN',
) {
  const invoice = newInvoice();
  const answer = await getText(
    `${platform.collectUrl}${path}`,
    signedPacket(
      {
        MIN: merchant.min,
        INVOICE: invoice,
        AMOUNT: amount,
        CURRENCY: currency,
        EXP_TIME: expTimeIn(expiresInMs),
      },
      merchant.secret,
    ),
  );
  expect(answer.status, answer.body).toBe(200);
  return { idn: answer.fields.IDN ?? '', invoice } satisfies Registered;
}

const obligation = (idn: string) => obligationRow(platform.db, idn);
const history = (idn: string) => statusHistory(platform.db, idn);

/** Notification lines the sandbox merchant received for an invoice. */
const notificationsOf = (invoice: string) =>
  platform.sandbox.merchant.notifications
    .filter((post) => post.min === merchant.min)
    .flatMap((post) => post.lines)
    .filter((line) => line.invoice === invoice);

/** Once the obligation's workflow closed and the merchant's deliveries ended: nothing more can come. */
async function notifiedOnce(registered: Registered) {
  await eventually(async () => {
    const described = await platform.client.workflow.getHandle(`collect-${registered.idn}`).describe();
    return described.status.name === 'COMPLETED' ? true : undefined;
  });
  await eventually(async () => (notificationsOf(registered.invoice).length > 0 ? true : undefined));
  await platform.client.workflow.getHandle(merchantNotificationsWorkflowId(merchant.min)).result();
  expect(notificationsOf(registered.invoice)).toEqual([expect.objectContaining({ status: 'PAID' })]);
}

// --- the operator's side ----------------------------------------------------------------------------

const admin = (
  method: string,
  urlPath: string,
  init: { body?: string | Buffer | FormData; type?: string; token?: string } = {},
) =>
  fetch(`${platform.apiUrl}/admin${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`,
      ...(init.type ? { 'content-type': init.type } : {}),
    },
    body: init.body,
  });

interface Received {
  statementId: string;
  credits: number;
  alreadyImported: number;
  duplicate: boolean;
  skipped: { debits: number; notBooked: number };
}

async function upload(xml: string | Buffer) {
  const response = await admin('POST', '/collect/statements', { body: xml, type: 'application/xml' });
  const body = (await response.json()) as {
    statements: Received[];
    error?: { code: string; fields?: unknown };
  };
  return { status: response.status, body };
}

async function imported(statementId: string) {
  return eventually(
    async () => {
      const response = await admin('GET', `/collect/statements/${statementId}`);
      const statement = (await response.json()) as {
        status: string;
        credits: number;
        settled: number;
        review: number;
      };
      return statement.status === 'imported' ? statement : undefined;
    },
    30_000,
    `statement ${statementId} imported`,
  );
}

interface ReviewItem {
  id: number;
  entryRef: string;
  reason: string;
  reasonDetail: string | null;
  idn: string | null;
  obligationIdn: string | null;
  amount: string;
  state: string;
}

async function reviewOf(statementId: string): Promise<ReviewItem[]> {
  const response = await admin('GET', '/collect/statements/review?limit=500');
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: (ReviewItem & { statementId: string })[] };
  return items.filter((item) => item.statementId === statementId);
}

let statementCounter = 0;
const statementId = (prefix: string) => `${prefix}-${Date.now()}-${++statementCounter}`;
const credit = (
  ref: string,
  amount: string,
  remittance: string,
  extra: Partial<CamtEntry> = {},
): CamtEntry => ({
  ref: `${ref}-${Date.now()}-${++statementCounter}`,
  amount,
  ustrd: [remittance],
  ...extra,
});

describe('bank statement import', () => {
  it('settles matched credits once; partly matched, duplicate, unknown and other credits go to review', async () => {
    const paidBySlip = await register('22.80');
    const paidByRef = await register('15.00', '/office/reg_bill.cgi');
    const partly = await register('40.00');
    const otherCurrency = await register('12.00');
    const expired = await register('5.00', '/office/reg_vnbel.cgi', 2_500);
    await eventually(async () => ((await obligation(expired.idn))?.status === 'EXPIRED' ? true : undefined));

    const entries = [
      credit('A', '22.80', `Deposit slip ${paidBySlip.idn} Ivan Petrov`),
      credit('B', '15.00', 'office bill', { ustrd: [], creditorRef: paidByRef.idn }),
      credit('C', '39.00', `IDN ${partly.idn}`),
      credit('D', '22.80', `again ${paidBySlip.idn}`),
      credit('E', '10.00', 'IDN 0000000017'),
      credit('F', '3.00', 'no reference at all'),
      credit('G', '12.00', `IDN ${otherCurrency.idn}`, { currency: 'EUR' }),
      credit('H', '5.00', `IDN ${expired.idn}`),
      credit('I', '99.00', 'card fee', { credit: false }),
      credit('J', '40.00', `IDN ${partly.idn}`, { status: 'PDNG' }),
    ];
    const xml = camt053({ id: statementId('STMT'), entries });
    const { status, body } = await upload(xml);
    expect(status, JSON.stringify(body)).toBe(202);
    const [received] = body.statements;
    expect(received).toMatchObject({
      credits: 8,
      alreadyImported: 0,
      duplicate: false,
      skipped: { debits: 1, notBooked: 1 },
    });
    const statement = await imported(received?.statementId ?? '');
    expect(statement).toMatchObject({ credits: 8, settled: 2, review: 6 });

    for (const paid of [paidBySlip, paidByRef]) {
      expect(await obligation(paid.idn)).toMatchObject({
        status: 'PAID',
        stan: expect.stringMatching(/^\d{6}$/),
      });
      expect(await history(paid.idn)).toEqual(['PAID']);
      await notifiedOnce(paid);
    }
    expect((await obligation(partly.idn))?.status).toBe('PENDING');
    expect((await obligation(otherCurrency.idn))?.status).toBe('PENDING');

    const review = await reviewOf(received?.statementId ?? '');
    const reasonOf = (entry: CamtEntry) => review.find((item) => item.entryRef === `${entry.ref}-TX`)?.reason;
    expect(entries.slice(2, 8).map(reasonOf)).toEqual([
      'amount_differs',
      'duplicate_credit',
      'unknown_idn',
      'no_idn',
      'currency_differs',
      'obligation_expired',
    ]);
    expect(review.find((item) => item.reason === 'amount_differs')).toMatchObject({
      idn: partly.idn,
      obligationIdn: partly.idn,
      amount: '39.00',
    });
  });

  it('changes nothing when the same statement is imported again; a notification’s credits are not imported twice', async () => {
    const first = await register('30.00');
    const second = await register('31.00');
    const early = credit('N', '30.00', `IDN ${first.idn}`);
    const notification = camt054({ id: statementId('NTF'), entries: [early] });
    const noticed = await upload(notification);
    expect(noticed.status).toBe(202);
    await imported(noticed.body.statements[0]?.statementId ?? '');
    expect((await obligation(first.idn))?.status).toBe('PAID');

    // The day's statement carries the notified credit again, and one more.
    const xml = camt053({
      id: statementId('STMT'),
      entries: [early, credit('S', '31.00', `IDN ${second.idn}`)],
    });
    const stated = await upload(xml);
    expect(stated.body.statements[0]).toMatchObject({ credits: 2, alreadyImported: 1 });
    await imported(stated.body.statements[0]?.statementId ?? '');
    await notifiedOnce(first);
    await notifiedOnce(second);
    const before = await platform.db.select().from(collectStatementCredits);

    for (const document of [xml, notification]) {
      const again = await upload(document);
      expect(again.status).toBe(200);
      expect(again.body.statements[0]).toMatchObject({ duplicate: true });
    }
    expect(await platform.db.select().from(collectStatementCredits)).toEqual(before);
    expect(await history(first.idn)).toEqual(['PAID']);
    expect(await history(second.idn)).toEqual(['PAID']);
    expect(notificationsOf(first.invoice)).toHaveLength(1);

    // The same identity with other content is not the same statement.
    const changed = await upload(xml.replace('31.00', '32.00').replace('31.00', '32.00'));
    expect(changed.status).toBe(409);
    expect(changed.body.error?.code).toBe('statement_conflict');
  });

  it('a settlement repeated after a crash recognises its own payment; another credit is a duplicate', async () => {
    const slip = await register('18.00');
    const { body } = await upload(
      camt053({ id: statementId('STMT'), entries: [credit('K', '18.00', slip.idn)] }),
    );
    await imported(body.statements[0]?.statementId ?? '');
    const [settled] = await platform.db
      .select()
      .from(collectStatementCredits)
      .where(eq(collectStatementCredits.obligationIdn, slip.idn));
    expect(settled?.state).toBe('settled');
    const deps = { db: platform.db, temporal: platform.client };
    const again = {
      id: settled?.id ?? 0,
      statementId: settled?.statementId ?? '',
      entryRef: settled?.entryRef ?? '',
      obligationIdn: slip.idn,
      kind: 'deposit_slip' as const,
    };
    // As if the activity ran again after paying and before recording it.
    expect(await settleCredit(deps, again)).toBe('settled');
    expect(await settleCredit(deps, { ...again, id: again.id + 100_000, entryRef: 'other' })).toBe(
      'duplicate_credit',
    );
    expect(await history(slip.idn)).toEqual(['PAID']);
    await notifiedOnce(slip);
  });

  it('an operator settles a review item with the right obligation, or dismisses it', async () => {
    const slip = await register('27.50');
    const entries = [credit('U', '27.50', 'payment, reference lost'), credit('V', '1.00', 'test transfer')];
    const { body } = await upload(camt053({ id: statementId('STMT'), entries }));
    const id = body.statements[0]?.statementId ?? '';
    await imported(id);
    const [lost, test] = await reviewOf(id);

    const wrong = await admin('POST', `/collect/statements/review/${test?.id}/resolve`, {
      type: 'application/json',
      body: JSON.stringify({ action: 'settle', idn: slip.idn }),
    });
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('amount_differs');

    const settle = await admin('POST', `/collect/statements/review/${lost?.id}/resolve`, {
      type: 'application/json',
      body: JSON.stringify({ action: 'settle', idn: slip.idn, note: 'payer called' }),
    });
    expect(settle.status).toBe(200);
    expect(await settle.json()).toMatchObject({ state: 'resolved', obligationIdn: slip.idn });
    expect((await obligation(slip.idn))?.status).toBe('PAID');
    await notifiedOnce(slip);

    const dismiss = await admin('POST', `/collect/statements/review/${test?.id}/resolve`, {
      type: 'application/json',
      body: JSON.stringify({ action: 'dismiss', note: 'refunded to the payer' }),
    });
    expect(dismiss.status).toBe(200);
    const twice = await admin('POST', `/collect/statements/review/${test?.id}/resolve`, {
      type: 'application/json',
      body: JSON.stringify({ action: 'dismiss', note: 'again' }),
    });
    expect(twice.status).toBe(409);
    expect(await reviewOf(id)).toEqual([]);
  });

  it('refuses malformed XML, DTDs (XXE), other documents, oversized input and missing credentials with 4xx', async () => {
    const refusal = async (response: Response) => ({
      status: response.status,
      code: ((await response.json()) as { error: { code: string } }).error.code,
    });
    const post = (body: string, type = 'application/xml') =>
      admin('POST', '/collect/statements', { body, type }).then(refusal);

    expect(await post('<Document><BkToCstmrStmt></Document>')).toEqual({
      status: 400,
      code: 'statement_malformed_xml',
    });
    const xxe =
      '<?xml version="1.0"?>\n<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n' +
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>&xxe;</MsgId></GrpHdr></BkToCstmrStmt></Document>';
    expect(await post(xxe)).toEqual({ status: 400, code: 'statement_dtd_refused' });
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    expect(await post(laughs)).toEqual({ status: 400, code: 'statement_dtd_refused' });
    expect(
      await post(
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>',
      ),
    ).toEqual({ status: 422, code: 'statement_unsupported_document' });
    expect(await post(camt053({ id: 'X', entries: [] }).replace(/<Acct>.*<\/Acct>/, ''))).toEqual({
      status: 422,
      code: 'statement_invalid',
    });
    expect(await post('{"statement":1}', 'application/json')).toEqual({
      status: 415,
      code: 'unsupported_media_type',
    });
    const anonymous = await admin('POST', '/collect/statements', {
      body: camt053({ id: 'Y', entries: [] }),
      type: 'application/xml',
      token: 'wrong',
    });
    expect(anonymous.status).toBe(401);
    const missingFile = new FormData();
    missingFile.append('other', 'x');
    expect(await admin('POST', '/collect/statements', { body: missingFile }).then(refusal)).toEqual({
      status: 400,
      code: 'validation_failed',
    });
  });

  it('takes a statement larger than the 1 MiB body limit up to COLLECT_STATEMENT_MAX_BYTES, and refuses a larger one with 413', async () => {
    /** A busy day: one credit for us among `debits` outgoing payments (read and skipped). */
    const statementOf = (idn: string, debits: number) =>
      camt053({
        id: statementId('BIG'),
        entries: [
          credit('BIG', '52.00', `IDN ${idn}`),
          ...Array.from({ length: debits }, (_, n) => ({
            ...credit(`D${n}`, '1.00', 'supplier invoice'),
            credit: false,
          })),
        ],
      });
    const slip = await register('52.00');
    const big = statementOf(slip.idn, 2_400);
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(big.length).toBeLessThan(MAX_BYTES);
    const accepted = await upload(big);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.statements[0]).toMatchObject({
      credits: 1,
      skipped: { debits: 2_400, notBooked: 0 },
    });
    await imported(accepted.body.statements[0]?.statementId ?? '');
    expect((await obligation(slip.idn))?.status).toBe('PAID');
    await notifiedOnce(slip);

    const refusal = async (response: Response) => ({
      status: response.status,
      type: response.headers.get('content-type'),
      code: ((await response.json()) as { error: { code: string } }).error.code,
    });
    const tooLarge = {
      status: 413,
      type: expect.stringMatching(/^application\/json/),
      code: 'statement_too_large',
    };
    const other = await register('53.00');
    // Just above the limit (the document is measured), and far above it (refused before it is read).
    for (const debits of [3_450, 5_000]) {
      const xml = statementOf(other.idn, debits);
      expect(xml.length).toBeGreaterThan(MAX_BYTES);
      const response = await admin('POST', '/collect/statements', { body: xml, type: 'application/xml' });
      expect(await refusal(response), `${xml.length} bytes`).toEqual(tooLarge);
    }
    // Without the admin token a body over the platform's limit is not read at all.
    const anonymous = await admin('POST', '/collect/statements', {
      body: big,
      type: 'application/xml',
      token: 'wrong',
    });
    expect((await refusal(anonymous)).status).toBe(413);
    expect((await obligation(other.idn))?.status).toBe('PENDING');
  });

  it('takes a multipart upload', async () => {
    const slip = await register('44.00');
    const form = new FormData();
    form.append(
      'file',
      new Blob([camt053({ id: statementId('STMT'), entries: [credit('M', '44.00', slip.idn)] })], {
        type: 'application/xml',
      }),
      'statement.xml',
    );
    const response = await admin('POST', '/collect/statements', { body: form });
    expect(response.status).toBe(202);
    const { statements } = (await response.json()) as { statements: Received[] };
    await imported(statements[0]?.statementId ?? '');
    expect((await obligation(slip.idn))?.status).toBe('PAID');
    await notifiedOnce(slip);
  });
});

describe('statements as banks write them (decision 0053)', () => {
  it('imports every good credit of a bank’s day; unusual entries wait in review with their reason', async () => {
    const eur = (amount: string) => register(amount, '/office/reg_vnbel.cgi', 86_400_000, 'EUR');
    const batch = [await eur('12.50'), await eur('30.00'), await eur('7.25')] as const;
    const charged = await eur('99.00');
    const single = await eur('45.00');
    // ISO-8859-1 bytes, a batch booking whose transactions repeat the entry's reference, charges.
    const germanId = statementId('DE');
    const { status, body } = await upload(
      germanBatchDay({
        id: germanId,
        batch: [batch[0].idn, batch[1].idn, batch[2].idn],
        charged: charged.idn,
        single: single.idn,
      }),
    );
    expect(status, JSON.stringify(body)).toBe(202);
    const id = body.statements[0]?.statementId ?? '';
    expect(await imported(id)).toMatchObject({ credits: 6, settled: 4, review: 2 });
    for (const paid of [...batch, single]) {
      expect((await obligation(paid.idn))?.status).toBe('PAID');
      await notifiedOnce(paid);
    }
    expect((await obligation(charged.idn))?.status).toBe('PENDING');
    const review = await reviewOf(id);
    expect(review.map((item) => [item.reason, item.amount])).toEqual([
      ['amount_differs', '97.50'],
      ['zero_amount', '0.00'],
    ]);
    const credits = await platform.db
      .select()
      .from(collectStatementCredits)
      .where(eq(collectStatementCredits.statementId, id));
    // Read as the declaration says (ISO-8859-1), not as UTF-8.
    expect(credits.map((row) => row.debtorName)).toContain('Jürgen Größe');

    // The day after: a structured reference, a booking listed twice, a return, an entry without amount,
    // and the bank taking back the single transfer of the day before.
    const structured = await eur('250.00');
    const repeated = await eur('60.00');
    const nordic = await upload(
      nordicDay({
        id: statementId('NO'),
        structured: structured.idn,
        repeated: repeated.idn,
        reversed: { ref: `${germanId}-S`, endToEndId: 'NOTPROVIDED', amount: '45.00' },
      }),
    );
    expect(nordic.status, JSON.stringify(nordic.body)).toBe(202);
    const nordicId = nordic.body.statements[0]?.statementId ?? '';
    expect(await imported(nordicId)).toMatchObject({ credits: 6, settled: 2, review: 3, reversed: 1 });
    const nordicReview = await reviewOf(nordicId);
    expect(nordicReview.map((item) => [item.reason, item.obligationIdn])).toEqual([
      ['duplicate_entry', null],
      ['returned_payment', null],
      ['unreadable_entry', null],
    ]);
    // The reversal took the single transfer's payment back (decision 0063): unpaid again.
    await eventually(async () => ((await obligation(single.idn))?.status === 'PENDING' ? true : undefined));
    expect((await obligation(structured.idn))?.status).toBe('PAID');
    expect((await obligation(repeated.idn))?.status).toBe('PAID');

    // A notification in a business application header envelope.
    const notified = await eur('70.00');
    const enveloped = await upload(
      envelopedNotification({ id: statementId('BAH'), idn: notified.idn, amount: '70.00' }),
    );
    expect(enveloped.status, JSON.stringify(enveloped.body)).toBe(202);
    await imported(enveloped.body.statements[0]?.statementId ?? '');
    expect((await obligation(notified.idn))?.status).toBe('PAID');
  });
});

describe('a reversal un-pays what it reversed (decision 0063)', () => {
  /** The obligation's ledger transactions (key and the merchant's side), in order. */
  const ledgerOf = async (idn: string) =>
    platform.db
      .select({
        key: collectLedgerTransactions.key,
        kind: collectLedgerTransactions.kind,
        merchant: sql<string>`sum(${collectLedgerEntries.amountMinor}) filter (where ${collectLedgerEntries.account} like 'merchant:%')`,
      })
      .from(collectLedgerTransactions)
      .innerJoin(collectLedgerEntries, eq(collectLedgerEntries.transactionId, collectLedgerTransactions.id))
      .where(eq(collectLedgerTransactions.idn, idn))
      .groupBy(collectLedgerTransactions.id, collectLedgerTransactions.key, collectLedgerTransactions.kind)
      .orderBy(asc(collectLedgerTransactions.id));

  it('a statement credit pays a bill; the bank’s reversal of it makes the bill unpaid again through its workflow, once', async () => {
    const bill = await register('33.40');
    const paying = credit('PAY', '33.40', `IDN ${bill.idn}`);
    const first = await upload(camt053({ id: statementId('DAY1'), entries: [paying] }));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(await imported(first.body.statements[0]?.statementId ?? '')).toMatchObject({ settled: 1 });
    await notifiedOnce(bill);
    const paidRun = await platform.client.workflow.getHandle(`collect-${bill.idn}`).describe();

    // The next day the bank takes the credit back: a DBIT entry with RvslInd and the credit's references.
    const reversalDay = camt053({
      id: statementId('DAY2'),
      entries: [{ ...paying, credit: false, reversal: true, ustrd: ['Reversal of an erroneous booking'] }],
    });
    const second = await upload(reversalDay);
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    const secondId = second.body.statements[0]?.statementId ?? '';
    expect(await imported(secondId)).toMatchObject({ credits: 1, settled: 0, review: 0, reversed: 1 });
    expect(await reviewOf(secondId)).toEqual([]);

    // The workflow: a new run of collect-<idn> took the payment back and waits for a payment again.
    const handle = platform.client.workflow.getHandle(`collect-${bill.idn}`);
    const reopened = await eventually(async () => {
      const described = await handle.describe();
      return described.runId !== paidRun.runId ? described : undefined;
    });
    expect(reopened.status.name).toBe('RUNNING');
    // The read model: unpaid, its events PAID then PENDING again (written by the new run's first step,
    // which may still be running when the run is there).
    const row = await eventually(async () => {
      const current = await obligation(bill.idn);
      return current?.status === 'PENDING' ? current : undefined;
    });
    expect(row).toMatchObject({ status: 'PENDING', paidAmountMinor: null, payTime: null, settledAt: null });
    expect(await history(bill.idn)).toEqual(['PAID', 'PENDING']);
    // The ledger: the settlement, then the same negated.
    expect(await ledgerOf(bill.idn)).toEqual([
      { key: `settlement:${bill.idn}`, kind: 'settlement', merchant: '-3340' },
      { key: `settlement-reversed:${bill.idn}`, kind: 'settlement_reversed', merchant: '3340' },
    ]);
    // The merchant is told: PAID, then REVERSED.
    await eventually(async () => (notificationsOf(bill.invoice).length === 2 ? true : undefined));
    expect(notificationsOf(bill.invoice).map((line) => line.status)).toEqual(['PAID', 'REVERSED']);
    // The REVERSED line names the payment taken back by its PAY_TIME, alone (decision 0063, amended).
    const [paidLine, reversedLine] = notificationsOf(bill.invoice);
    expect(paidLine?.payTime).toMatch(/^\d{14}$/);
    expect(reversedLine).toMatchObject({ status: 'REVERSED', payTime: paidLine?.payTime });
    expect(reversedLine?.stan).toBeUndefined();
    expect(reversedLine?.bcode).toBeUndefined();
    // Through the workflow: its first step took the payment back, its second told the merchant.
    const events = (await handle.fetchHistory()).events ?? [];
    const activities = events
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(activities.slice(0, 2)).toEqual(['recordObligationReversal', 'queueMerchantNotification']);
    // Both credits are out of the way: the reversed one and the reversal.
    const rows = await platform.db
      .select({ entryRef: collectStatementCredits.entryRef, state: collectStatementCredits.state })
      .from(collectStatementCredits)
      .where(eq(collectStatementCredits.obligationIdn, bill.idn))
      .orderBy(asc(collectStatementCredits.id));
    expect(rows.map((credit) => credit.state)).toEqual(['reversed', 'reversed']);

    // The same reversal statement again changes nothing; so does the same reversal in another statement.
    const again = await upload(reversalDay);
    expect(again.body.statements[0]).toMatchObject({ duplicate: true });
    const elsewhere = await upload(
      camt054({ id: statementId('NTF'), entries: [{ ...paying, credit: false, reversal: true }] }),
    );
    expect(elsewhere.body.statements[0]).toMatchObject({ alreadyImported: 1 });
    await imported(elsewhere.body.statements[0]?.statementId ?? '');
    expect((await handle.describe()).runId).toBe(reopened.runId);
    expect(await history(bill.idn)).toEqual(['PAID', 'PENDING']);
    expect((await ledgerOf(bill.idn)).length).toBe(2);

    // Paid again by a new credit: PAID a second time, notified as such, its own settlement.
    const repaid = await upload(
      camt053({ id: statementId('DAY3'), entries: [credit('PAY2', '33.40', `IDN ${bill.idn}`)] }),
    );
    expect(await imported(repaid.body.statements[0]?.statementId ?? '')).toMatchObject({ settled: 1 });
    expect(await handle.result()).toBe('PAID');
    expect((await ledgerOf(bill.idn)).map((line) => line.key)).toEqual([
      `settlement:${bill.idn}`,
      `settlement-reversed:${bill.idn}`,
      `settlement:${bill.idn}#2`,
    ]);
    await eventually(async () => (notificationsOf(bill.invoice).length === 3 ? true : undefined));
    expect(notificationsOf(bill.invoice).map((line) => line.status)).toEqual(['PAID', 'REVERSED', 'PAID']);
    const notified = await platform.db
      .select({
        status: collectNotifications.status,
        round: collectNotifications.round,
        payTime: collectNotifications.payTime,
      })
      .from(collectNotifications)
      .where(eq(collectNotifications.invoice, bill.invoice))
      .orderBy(asc(collectNotifications.createdAt));
    const secondPaid = notificationsOf(bill.invoice)[2];
    expect(notified).toEqual([
      { status: 'PAID', round: 0, payTime: paidLine?.payTime },
      { status: 'REVERSED', round: 0, payTime: paidLine?.payTime },
      { status: 'PAID', round: 1, payTime: secondPaid?.payTime },
    ]);
  });

  it('a reversal with no matching credit, or of a payment made otherwise, waits in review with its reason', async () => {
    const byDesk = await register('12.00', '/office/reg_bill.cgi');
    const nothing = credit('GHOST', '19.99', 'never credited');
    const paidOtherwise = credit('SETTLED-ELSEWHERE', '12.00', `IDN ${byDesk.idn}`);
    // The credit arrives while the bill is open, but is refused because it was paid at the desk first.
    const pay = await fetch(`${platform.collectUrl}/office/pay_bill.cgi?ACTION=PAY&IDN=${byDesk.idn}`);
    expect(pay.status, await pay.text()).toBe(200);
    await eventually(async () => ((await obligation(byDesk.idn))?.status === 'PAID' ? true : undefined));
    const day1 = await upload(camt053({ id: statementId('R1'), entries: [paidOtherwise] }));
    const day1Id = day1.body.statements[0]?.statementId ?? '';
    expect(await imported(day1Id)).toMatchObject({ review: 1 });
    const day2 = await upload(
      camt053({
        id: statementId('R2'),
        entries: [
          { ...nothing, credit: false, reversal: true },
          { ...paidOtherwise, credit: false, reversal: true },
        ],
      }),
    );
    const day2Id = day2.body.statements[0]?.statementId ?? '';
    expect(await imported(day2Id)).toMatchObject({ review: 2, reversed: 0 });
    const review = await reviewOf(day2Id);
    expect(review.map((item) => item.reason)).toEqual(['credit_reversed', 'credit_reversed']);
    expect(review[0]?.reasonDetail).toMatch(/no earlier imported credit/);
    expect(review[1]?.reasonDetail).toMatch(/which settled nothing/);
    expect((await obligation(byDesk.idn))?.status).toBe('PAID');
  });
});

describe('the watched statement folder', () => {
  /** Written under another name and renamed, as a bank's file transfer should. */
  async function drop(name: string, xml: string) {
    await writeFile(path.join(folder, `${name}.part`), xml);
    await rename(path.join(folder, `${name}.part`), path.join(folder, name));
  }
  const listed = (sub: string) => readdir(path.join(folder, sub)).catch(() => [] as string[]);

  it('imports a dropped file once and moves it to processed/; a refused one to failed/ with the reason', async () => {
    const slip = await register('61.00');
    const xml = camt053({ id: statementId('DIR'), entries: [credit('W', '61.00', `IDN ${slip.idn}`)] });
    await drop('day-1.xml', xml);
    await eventually(async () => ((await listed('processed')).includes('day-1.xml') ? true : undefined));
    expect(await readdir(folder)).not.toContain('day-1.xml');
    await eventually(async () => ((await obligation(slip.idn))?.status === 'PAID' ? true : undefined));
    await notifiedOnce(slip);

    // The same statement dropped again (under another name): nothing changes.
    const credits = await platform.db.select().from(collectStatementCredits);
    await drop('day-1-again.xml', xml);
    await eventually(async () =>
      (await listed('processed')).includes('day-1-again.xml') ? true : undefined,
    );
    expect(await platform.db.select().from(collectStatementCredits)).toEqual(credits);
    expect(await history(slip.idn)).toEqual(['PAID']);
    expect(notificationsOf(slip.invoice)).toHaveLength(1);

    await drop('broken.xml', '<Document><Stmt>');
    await eventually(async () => ((await listed('failed')).includes('broken.xml') ? true : undefined));
    expect(await readFile(path.join(folder, 'failed', 'broken.xml.error.txt'), 'utf8')).toMatch(
      /not well-formed/,
    );
  });
});
