import { describe, expect, it } from 'vitest';
import {
  readStatementDocument,
  StatementDocumentError,
  statementIdOf,
} from '../../domain/collect/statement.ts';
import { camt053, camt054, GATEWAY_IBAN } from './camt-builder.ts';

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
    expect(
      problemOf(camt053({ id: 'S', entries: [{ amount: '1.001', ref: 'X', ustrd: ['1234567890'] }] })),
    ).toMatchObject({ code: 'statement_invalid', field: 'Stmt[1].Ntry[1].Amt' });
  });
});
