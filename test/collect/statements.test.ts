import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { settleCredit } from '../../db/collect/statement-settlement.ts';
import { collectStatementCredits } from '../../db/schema/collect-statements.ts';
import { eventually } from '../support/platform.ts';
import { type CamtEntry, camt053, camt054 } from './camt-builder.ts';
import { envelopedNotification, germanBatchDay, nordicDay } from './camt-samples.ts';
import {
  admin,
  credit,
  folder,
  history,
  imported,
  MAX_BYTES,
  notificationsOf,
  notifiedOnce,
  obligation,
  platform,
  type Received,
  register,
  reviewOf,
  statementId,
  upload,
  useStatementPlatform,
} from './statements-support.ts';

/**
 * Bank statements (decision 0031): camt.053/054 documents uploaded by an operator or dropped in the
 * watched folder settle the obligations their credits name, each once; the rest wait in review.
 * Reversals: statements-reversals.test.ts.
 */

useStatementPlatform();

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
