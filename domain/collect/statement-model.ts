import type { EntryProblem } from './statement-matching.ts';

/**
 * What a camt bank statement reads into (statement.ts): its kinds, its statements and their credits,
 * and why a document is refused as a whole.
 */

export const camtKinds = ['camt.052', 'camt.053', 'camt.054'] as const;
export type CamtKind = (typeof camtKinds)[number];

/** One booked credit of a statement: a customer's transfer to the gateway's account. */
export interface StatementCredit {
  /**
   * The bank's reference of the credit, unique per account (the key a notification and the later
   * statement share, so a credit is imported once whichever arrives first): see creditKeys.
   */
  entryRef: string;
  /** Position in the statement (1-based), the order of matching. */
  position: number;
  /** 0 when the entry is unreadable. */
  amountMinor: number;
  /** As written (may be empty when the entry is unreadable). */
  currency: string;
  bookingDate?: string | undefined;
  valueDate?: string | undefined;
  /** The remittance information as the payer wrote it (structured reference first). */
  remittance: string;
  /** The 10-digit IDN found in the remittance information; none when there is none or several. */
  idn?: string | undefined;
  /** Several different 10-digit numbers: which one was meant is a person's decision. */
  idnAmbiguous: boolean;
  debtorName?: string | undefined;
  debtorAccount?: string | undefined;
  endToEndId?: string | undefined;
  /** Why this entry cannot settle anything by itself: it goes to the review list. */
  problem?: { reason: EntryProblem; detail: string } | undefined;
}

/** One statement (Stmt), report (Rpt) or notification (Ntfctn) of a camt document, for one account. */
export interface BankStatement {
  kind: CamtKind;
  /** Message definition, e.g. `camt.053.001.08`. */
  messageDefinition: string;
  /** GrpHdr/MsgId. */
  messageId: string;
  /** Stmt/Id, Rpt/Id or Ntfctn/Id: with the account and the kind, the statement's identity. */
  documentId: string;
  /** Acct/Id/IBAN (or Acct/Id/Othr/Id). */
  account: string;
  /** CreDtTm of the statement. */
  createdAt?: string | undefined;
  credits: StatementCredit[];
  /** Entries not imported: debits (CdtDbtInd DBIT) and entries not booked (status other than BOOK). */
  skipped: { debits: number; notBooked: number };
  /** SHA-256 of what was read: the same identity with different content is a conflict. */
  digest: string;
}

export type StatementProblemCode =
  | 'statement_malformed_xml'
  | 'statement_dtd_refused'
  | 'statement_unsupported_encoding'
  | 'statement_unsupported_document'
  | 'statement_invalid'
  | 'statement_too_large';

/** Why a document is not imported; the API answers it as a 4xx naming the problem. */
export class StatementDocumentError extends Error {
  constructor(
    readonly code: StatementProblemCode,
    message: string,
    /** Where, as a path of camt element names (`Stmt[1].Acct.Id`) or `(body)`. */
    readonly field = '(body)',
  ) {
    super(message);
    this.name = 'StatementDocumentError';
  }
}
