import { describe, expect, it } from 'vitest';
import {
  creditKeys,
  decodeStatementBytes,
  openStatementDocument,
  readStatementDocument,
  StatementDocumentError,
  statementIdOf,
} from '../../domain/collect/statement.ts';
import { camt053, camt054, GATEWAY_IBAN } from './camt-builder.ts';
import { ACCOUNT, envelopedNotification, germanBatchDay, intradayReport, nordicDay } from './camt-samples.ts';

/** Reading camt.053/054 documents (domain/collect/statement.ts): pure, no platform. */

const problemOf = (xml: string) => {
  try {
    readStatementDocument(xml);
  } catch (error) {
    if (error instanceof StatementDocumentError) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('the document was read');
};

describe('reading camt statements', () => {
  it('reads the booked credits of a camt.053.001.08 statement, skipping debits and pending entries', () => {
    const [statement, ...more] = readStatementDocument(
      camt053({
        id: 'STMT-1',
        entries: [
          { amount: '22.80', ref: 'R1', ustrd: ['Invoice 1001, IDN 1234567890'], debtor: 'Maria Ivanova' },
          { amount: '10', ref: 'R2', creditorRef: '2345678901', ustrd: ['ref 3456789012'] },
          { amount: '5.00', ref: 'R3', credit: false, ustrd: ['fee'] },
          { amount: '7.00', ref: 'R4', status: 'PDNG', ustrd: ['4567890123'] },
          { amount: '1.00', ref: 'R5', ustrd: ['12345678901 is too long, 123456789 too short'] },
          { amount: '2.00', ref: 'R6', ustrd: ['1111111111 or 2222222222'] },
        ],
      }),
    );
    expect(more).toEqual([]);
    expect(statement).toMatchObject({
      kind: 'camt.053',
      messageDefinition: 'camt.053.001.08',
      messageId: 'MSG-STMT-1',
      documentId: 'STMT-1',
      account: GATEWAY_IBAN,
      skipped: { debits: 1, notBooked: 1 },
    });
    expect(statement?.credits).toEqual([
      expect.objectContaining({
        entryRef: 'R1-TX',
        position: 1,
        amountMinor: 2280,
        currency: 'BGN',
        idn: '1234567890',
        idnAmbiguous: false,
        debtorName: 'Maria Ivanova',
        debtorAccount: 'BG18RZBB91550123456789',
        endToEndId: 'E2E-R1',
        bookingDate: '2027-07-15',
      }),
      // The structured creditor reference is the one the payer was given: it comes first.
      expect.objectContaining({ entryRef: 'R2-TX', amountMinor: 1000, idnAmbiguous: true }),
      expect.objectContaining({ entryRef: 'R5-TX', amountMinor: 100, idn: undefined, idnAmbiguous: false }),
      expect.objectContaining({ entryRef: 'R6-TX', idn: undefined, idnAmbiguous: true }),
    ]);
  });

  it('reads a camt.054.001.08 notification, a batch entry per transaction, and a .02 status', () => {
    const [notification] = readStatementDocument(
      camt054({
        id: 'NTF-1',
        entries: [
          {
            amount: '30.00',
            ref: 'B1',
            batch: [
              { amount: '10.00', ref: 'B1-1', ustrd: '1234567890' },
              { amount: '20.00', ref: 'B1-2', ustrd: '2345678901' },
            ],
          },
        ],
      }).replace('<Sts><Cd>BOOK</Cd></Sts>', '<Sts>BOOK</Sts>'),
    );
    expect(notification).toMatchObject({ kind: 'camt.054', documentId: 'NTF-1' });
    expect(notification?.credits.map((c) => [c.entryRef, c.amountMinor, c.idn])).toEqual([
      ['B1-1-TX', 1000, '1234567890'],
      ['B1-2-TX', 2000, '2345678901'],
    ]);
  });

  it('reads prefixed namespaces; the identity does not depend on the content', () => {
    const plain = camt053({ id: 'S', entries: [{ amount: '1.00', ref: 'X', ustrd: ['1234567890'] }] });
    const prefixed = plain
      .replace(/<(\/?)([A-Za-z])/g, '<$1camt:$2')
      .replace('<camt:Document xmlns=', '<camt:Document xmlns:camt=');
    const [a] = readStatementDocument(plain);
    const [b] = readStatementDocument(prefixed);
    expect(b?.credits).toEqual(a?.credits);
    expect(a && statementIdOf(a)).toMatch(/^st_[0-9a-f]{24}$/);
    const [other] = readStatementDocument(camt053({ id: 'S', entries: [] }));
    expect(other && statementIdOf(other)).toBe(a && statementIdOf(a));
    expect(other?.digest).not.toBe(a?.digest);
  });

  it('refuses malformed XML, any DTD, other messages and statements without identity', () => {
    expect(problemOf('<Document><BkToCstmrStmt></Document>').code).toBe('statement_malformed_xml');
    expect(
      problemOf(
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>',
      ).code,
    ).toBe('statement_dtd_refused');
    expect(
      problemOf(
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>',
      ).code,
    ).toBe('statement_unsupported_document');
    // A camt.053 namespace around a notification is not a camt.053.
    expect(
      problemOf(camt054({ id: 'N', entries: [] }).replace('camt.054.001.08', 'camt.053.001.08')).code,
    ).toBe('statement_unsupported_document');
    expect(problemOf(camt053({ id: 'S', entries: [] }).replace(/<Acct>.*<\/Acct>/, ''))).toEqual({
      code: 'statement_invalid',
      field: 'Stmt[1].Acct.Id',
    });
  });
});

describe('statements as banks write them (decision 0053)', () => {
  const problems = (credits: { entryRef: string; problem?: { reason: string } | undefined }[]) =>
    credits.map((credit) => [credit.entryRef, credit.problem?.reason]);

  it('judges each entry on its own: an unreadable or zero amount goes to review, the rest is read', () => {
    const [statement] = readStatementDocument(
      camt053({
        id: 'S',
        entries: [
          { amount: '1.001', ref: 'X', ustrd: ['1234567890'] },
          { amount: '0.00', ref: 'Z', ustrd: ['2345678901'] },
          { amount: '5.00', ref: 'OK', ustrd: ['3456789012'] },
        ],
      }),
    );
    expect(statement?.credits).toEqual([
      expect.objectContaining({
        entryRef: 'X-TX',
        amountMinor: 0,
        problem: {
          reason: 'unreadable_entry',
          detail: 'Stmt[1].Ntry[1].NtryDtls.TxDtls[1].Amt: 1.001 is not an amount in minor units of BGN',
        },
      }),
      expect.objectContaining({
        entryRef: 'Z-TX',
        amountMinor: 0,
        problem: expect.objectContaining({ reason: 'zero_amount' }),
      }),
      expect.objectContaining({ entryRef: 'OK-TX', amountMinor: 500, idn: '3456789012', problem: undefined }),
    ]);
  });

  it('reads a German camt.053.001.02 in ISO-8859-1: batch booking with repeated references, charges, zero entry', () => {
    const [statement] = readStatementDocument(
      germanBatchDay({
        id: 'DE-1',
        batch: ['1000000001', '1000000002', '1000000003'],
        charged: '1000000004',
        single: '1000000005',
      }),
    );
    expect(statement).toMatchObject({
      kind: 'camt.053',
      messageDefinition: 'camt.053.001.02',
      account: ACCOUNT,
      skipped: { debits: 1, notBooked: 0 },
    });
    expect(
      statement?.credits.map((c) => [
        c.entryRef,
        c.amountMinor,
        c.currency,
        c.idn,
        c.debtorName,
        c.problem?.reason,
      ]),
    ).toEqual([
      // Three transactions of one batch, each with the entry's AcctSvcrRef: keyed by entry and position.
      ['DE-1-B/1', 1250, 'EUR', '1000000001', 'Jürgen Größe', undefined],
      ['DE-1-B/2', 3000, 'EUR', '1000000002', 'Zoë Çelik', undefined],
      ['DE-1-B/3', 725, 'EUR', '1000000003', 'Søren Ærø', undefined],
      // The booked amount (after the bank's charges) is what the gateway received.
      ['DE-1-C', 9750, 'EUR', '1000000004', 'Überweisung AG', undefined],
      ['DE-1-S', 4500, 'EUR', '1000000005', 'Björn Weiß', undefined],
      ['DE-1-Z', 0, 'EUR', undefined, undefined, 'zero_amount'],
    ]);
  });

  it('reads a camt.053.001.04: structured reference, a return, a reversal, a repeated booking, an entry without amount', () => {
    const [statement] = readStatementDocument(
      nordicDay({
        id: 'NO-1',
        structured: '2000000001',
        repeated: '2000000002',
        reversed: { ref: 'EARLIER-1', endToEndId: 'E2E-EARLIER', amount: '45.00' },
      }),
    );
    expect(statement).toMatchObject({
      messageDefinition: 'camt.053.001.04',
      skipped: { debits: 0, notBooked: 1 },
    });
    expect(problems(statement?.credits ?? [])).toEqual([
      ['NO-1-RF', undefined],
      ['NO-1-R', undefined],
      ['NO-1-R#2', 'duplicate_entry'],
      ['NO-1-RT', 'returned_payment'],
      ['RVSL:EARLIER-1', 'credit_reversed'],
      ['NO-1-NA', 'unreadable_entry'],
    ]);
    expect(statement?.credits[0]).toMatchObject({
      idn: '2000000001',
      amountMinor: 25000,
      debtorName: 'Kari Nordmann',
    });
    expect(statement?.credits[3]?.problem?.detail).toMatch(/AC04/);
    expect(statement?.credits[4]).toMatchObject({ amountMinor: 4500, endToEndId: 'E2E-EARLIER' });
  });

  it('keys batch transactions by their own references when each has a distinct one', () => {
    expect(creditKeys('E', [{ transactionRef: 'A' }, { transactionRef: 'B' }])).toEqual(['A', 'B']);
    expect(creditKeys('E', [{ transactionRef: 'E' }, { transactionRef: 'E' }])).toEqual(['E/1', 'E/2']);
    expect(creditKeys('E', [{ transactionRef: 'A' }, {}])).toEqual(['E/1', 'E/2']);
    expect(creditKeys('E', [{}])).toEqual(['E']);
    expect(creditKeys('E', [{ transactionRef: 'T' }])).toEqual(['T']);
  });

  it('reads a camt.054.001.08 in a business application header envelope', () => {
    const [notification] = readStatementDocument(
      envelopedNotification({ id: 'BAH-1', idn: '3000000001', amount: '70.00' }),
    );
    expect(notification).toMatchObject({
      kind: 'camt.054',
      messageDefinition: 'camt.054.001.08',
      documentId: 'BAH-1',
    });
    expect(notification?.credits).toEqual([
      expect.objectContaining({
        entryRef: 'BAH-1-1-TX',
        amountMinor: 7000,
        idn: '3000000001',
        debtorName: 'Anna Schmidt',
      }),
    ]);
  });

  it('reads a camt.052.001.08 report in windows-1252 with a prefixed namespace', () => {
    const [report] = readStatementDocument(intradayReport({ id: 'RPT-1', idn: '4000000001' }));
    expect(report).toMatchObject({
      kind: 'camt.052',
      messageDefinition: 'camt.052.001.08',
      documentId: 'RPT-1',
    });
    expect(report?.credits).toEqual([
      expect.objectContaining({
        entryRef: 'RPT-1-1',
        amountMinor: 1999,
        idn: '4000000001',
        debtorName: 'François Lefèvre – €',
      }),
    ]);
  });

  it('decodes as declared: BOMs, UTF-16, ISO-8859-1; refuses bytes invalid in UTF-8 and unknown encodings', () => {
    const utf8 = '<?xml version="1.0"?><a>Größe</a>';
    expect(decodeStatementBytes(Buffer.from(utf8))).toBe(utf8);
    expect(decodeStatementBytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(utf8)]))).toBe(
      utf8,
    );
    expect(
      decodeStatementBytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf8, 'utf16le')])),
    ).toBe(utf8);
    const latin = '<?xml version="1.0" encoding="iso-8859-1"?><a>Größe</a>';
    expect(decodeStatementBytes(Buffer.from(latin, 'latin1'))).toBe(latin);
    expect(() =>
      decodeStatementBytes(Buffer.from(utf8.replace('Größe', 'Gr\u00f6\u00dfe'), 'latin1')),
    ).toThrow(expect.objectContaining({ code: 'statement_malformed_xml' }));
    expect(() => decodeStatementBytes(Buffer.from('<?xml version="1.0" encoding="x-klingon"?><a/>'))).toThrow(
      expect.objectContaining({ code: 'statement_unsupported_encoding' }),
    );
  });

  it('still refuses a document that is not a camt message of version 02 or later, enveloped or not', () => {
    expect(
      problemOf(camt053({ id: 'S', entries: [] }).replace('camt.053.001.08', 'camt.053.001.01')).code,
    ).toBe('statement_unsupported_document');
    expect(
      problemOf(
        '<BizMsgEnvlp><Hdr><AppHdr><MsgDefIdr>pacs.008.001.08</MsgDefIdr></AppHdr></Hdr><Doc><Document/></Doc></BizMsgEnvlp>',
      ).code,
    ).toBe('statement_unsupported_document');
  });
});

describe('statements read an entry at a time (decision 0071)', () => {
  const entries = Array.from({ length: 7 }, (_, i) => ({
    amount: `${i + 1}.00`,
    ref: `R${i}`,
    ustrd: [`IDN ${4000000000 + i}`],
  }));

  it('gives the credits in chunks, with the totals once read, as the whole document reads', () => {
    const xml = camt053({ id: 'CHUNKS', entries });
    const [whole] = readStatementDocument(xml);
    const [reading] = openStatementDocument(xml);
    expect(() => reading?.totals()).toThrow();
    const chunks = [...(reading?.credits(3) ?? [])];
    expect(chunks.map((chunk) => chunk.length)).toEqual([3, 3, 1]);
    expect(chunks.flat()).toEqual(whole?.credits);
    expect(reading?.totals()).toEqual({ credits: 7, skipped: whole?.skipped, digest: whole?.digest });
  });

  it('is not misled by markup that looks like an entry in comments, CDATA or attribute values', () => {
    const plain = camt053({ id: 'MARKUP', entries });
    const tricky = plain
      .replace('<Stmt>', '<Stmt><!-- <Ntry> not an entry </Ntry> -->')
      .replace('<Ustrd>IDN 4000000003</Ustrd>', '<Ustrd><![CDATA[IDN 4000000003]]></Ustrd><!-- </Ntry> -->')
      .replace('<Amt Ccy="BGN">5.00</Amt>', '<Amt Ccy="BGN" note="a > b </Ntry>">5.00</Amt>');
    expect(tricky).not.toBe(plain);
    const [a] = readStatementDocument(plain);
    const [b] = readStatementDocument(tricky);
    expect(b?.credits).toEqual(a?.credits);
    // An entry left open is malformed, as before.
    expect(() => readStatementDocument(plain.replace('</Ntry>', ''))).toThrow(
      expect.objectContaining({ code: 'statement_malformed_xml' }),
    );
  });
});
