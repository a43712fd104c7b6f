import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Bank statements in ISO 20022 camt (docs/collect.md, "Bank statements"; decision 0031): the bank's
 * end-of-day statement camt.053 (BkToCstmrStmt) and its intraday notification camt.054
 * (BkToCstmrDbtCdtNtfctn), read into the booked credits the gateway matches to obligations. Pure: the
 * caller brings the text, nothing here touches a file, a database or the network.
 *
 * Message structure: ISO 20022 message definitions camt.053.001.08 and camt.054.001.08 (the shapes
 * read here are the same in versions 02 to 13; only where the status and the debtor's name sit moved).
 */

export const camtKinds = ['camt.053', 'camt.054'] as const;
export type CamtKind = (typeof camtKinds)[number];

/** One booked credit of a statement: a customer's transfer to the gateway's account. */
export interface StatementCredit {
  /**
   * The bank's reference of the credit, unique per account: TxDtls/Refs/AcctSvcrRef, else the entry's
   * AcctSvcrRef or NtryRef (with `/<n>` for the n-th transaction of a batch entry), else the position
   * in this statement. A notification and the later statement carry the same references, so a credit
   * is imported once whichever arrives first.
   */
  entryRef: string;
  /** Position in the statement (1-based), the order of matching. */
  position: number;
  amountMinor: number;
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
}

/** One statement (Stmt) or notification (Ntfctn) of a camt document, for one account. */
export interface BankStatement {
  kind: CamtKind;
  /** Message definition, e.g. `camt.053.001.08`. */
  messageDefinition: string;
  /** GrpHdr/MsgId. */
  messageId: string;
  /** Stmt/Id or Ntfctn/Id: with the account and the kind, the statement's identity. */
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
  | 'statement_unsupported_document'
  | 'statement_invalid'
  | 'statement_too_large';

/** Why a document is not imported; the API answers it as a 4xx naming the problem. */
export class StatementDocumentError extends Error {
  constructor(
    readonly code: StatementProblemCode,
    message: string,
    /** Where, as a path of camt element names (`Stmt[1].Ntry[3].Amt`) or `(body)`. */
    readonly field = '(body)',
  ) {
    super(message);
    this.name = 'StatementDocumentError';
  }
}

// --- reading -------------------------------------------------------------------------------------

type XmlNode = Record<string, unknown>;

/** Elements that may repeat in camt.053/054; the parser always gives them as arrays. */
const REPEATING = new Set(['Stmt', 'Ntfctn', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'Bal']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Prefixes are dropped from element names (`camt:Ntry` is `Ntry`); the xmlns attributes stay.
  transformTagName: (name) => name.slice(name.indexOf(':') + 1),
  // Amounts and references stay text: an amount is never a float, a reference keeps its zeros.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => REPEATING.has(name),
});

/** A DOCTYPE (internal subset, external entities): refused before parsing, so no entity is ever expanded. */
const DTD = /<!DOCTYPE|<!ENTITY/i;

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[34]\.001\.\d{2})$/;

/**
 * Reads a camt.053 or camt.054 document into its statements (one per Stmt / Ntfctn). Refuses what is
 * not one: malformed XML, any DTD, another message, a statement without identity or account.
 */
export function readStatementDocument(xml: string): BankStatement[] {
  if (DTD.test(xml)) {
    throw new StatementDocumentError(
      'statement_dtd_refused',
      'The document declares a DTD or entities; camt statements have none, and they are refused',
    );
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new StatementDocumentError(
      'statement_malformed_xml',
      `The document is not well-formed XML: ${msg} (line ${line}, column ${col})`,
    );
  }
  const root = asNode(parser.parse(xml));
  const document = asNode(root?.Document);
  // The default namespace, or the one a prefix (`xmlns:camt`) declares.
  const namespaces = Object.entries(document ?? {})
    .filter(([name]) => name === '@xmlns' || name.startsWith('@xmlns:'))
    .map(([, value]) => text(value) ?? '');
  const namespace = namespaces.find((uri) => NAMESPACE.test(uri)) ?? namespaces[0];
  const definition = namespace ? NAMESPACE.exec(namespace)?.[1] : undefined;
  const statementMessage = asNode(document?.BkToCstmrStmt);
  const notificationMessage = asNode(document?.BkToCstmrDbtCdtNtfctn);
  const message = statementMessage ?? notificationMessage;
  const kind: CamtKind = statementMessage ? 'camt.053' : 'camt.054';
  if (!document || !definition || !message || !definition.startsWith(kind)) {
    throw new StatementDocumentError(
      'statement_unsupported_document',
      `Not a camt.053 (BkToCstmrStmt) or camt.054 (BkToCstmrDbtCdtNtfctn) document${
        namespace ? ` (namespace ${namespace})` : ''
      }`,
      'Document',
    );
  }
  const messageId = text(asNode(message.GrpHdr)?.MsgId);
  if (!messageId) throw invalid('GrpHdr.MsgId', 'the message has no MsgId');
  const element = kind === 'camt.053' ? 'Stmt' : 'Ntfctn';
  const parts = nodes(message[element]);
  if (parts.length === 0) throw invalid(element, `the message has no ${element}`);
  return parts.map((part, index) =>
    readStatement(part, { kind, definition, messageId, path: `${element}[${index + 1}]` }),
  );
}

function readStatement(
  node: XmlNode,
  context: { kind: CamtKind; definition: string; messageId: string; path: string },
): BankStatement {
  const { path } = context;
  const documentId = text(node.Id);
  if (!documentId) throw invalid(`${path}.Id`, 'the statement has no Id');
  const accountId = asNode(asNode(node.Acct)?.Id);
  const account = text(accountId?.IBAN) ?? text(asNode(accountId?.Othr)?.Id);
  if (!account) throw invalid(`${path}.Acct.Id`, 'the statement names no account (IBAN or Othr/Id)');

  const credits: StatementCredit[] = [];
  const skipped = { debits: 0, notBooked: 0 };
  nodes(node.Ntry).forEach((entry, entryIndex) => {
    const entryPath = `${path}.Ntry[${entryIndex + 1}]`;
    const indicator = text(entry.CdtDbtInd);
    if (indicator !== 'CRDT' && indicator !== 'DBIT') {
      throw invalid(`${entryPath}.CdtDbtInd`, 'must be CRDT or DBIT');
    }
    if (indicator === 'DBIT') {
      skipped.debits++;
      return;
    }
    // camt.05x.001.02-.07: <Sts>BOOK</Sts>; from .08: <Sts><Cd>BOOK</Cd></Sts>.
    const status = text(entry.Sts) ?? text(asNode(entry.Sts)?.Cd);
    if (status !== 'BOOK') {
      skipped.notBooked++;
      return;
    }
    const entryAmount = amountOf(entry.Amt, `${entryPath}.Amt`);
    const entryRef = text(entry.AcctSvcrRef) ?? text(entry.NtryRef);
    const transactions = nodes(entry.NtryDtls).flatMap((details) => nodes(details.TxDtls));
    const bookingDate = dateOf(entry.BookgDt);
    const valueDate = dateOf(entry.ValDt);
    const fallbackRef = `${documentId}#${entryIndex + 1}`;

    if (transactions.length === 0) {
      credits.push({
        ...entryAmount,
        ...remittanceOf(text(entry.AddtlNtryInf) ? [text(entry.AddtlNtryInf) as string] : []),
        entryRef: entryRef ?? fallbackRef,
        position: credits.length + 1,
        bookingDate,
        valueDate,
      });
      return;
    }
    transactions.forEach((transaction, txIndex) => {
      const txPath = `${entryPath}.NtryDtls.TxDtls[${txIndex + 1}]`;
      const refs = asNode(transaction.Refs);
      const suffix = transactions.length > 1 ? `/${txIndex + 1}` : '';
      const amountNode =
        transaction.Amt ?? asNode(asNode(asNode(transaction.AmtDtls)?.TxAmt)?.Amt) ?? undefined;
      if (transactions.length > 1 && amountNode === undefined) {
        throw invalid(`${txPath}.Amt`, 'a transaction of a batch entry has no amount');
      }
      const parties = asNode(transaction.RltdPties);
      const debtor = asNode(parties?.Dbtr);
      const debtorAccountId = asNode(asNode(parties?.DbtrAcct)?.Id);
      credits.push({
        ...(amountNode === undefined ? entryAmount : amountOf(amountNode, `${txPath}.Amt`)),
        ...remittanceOf(remittanceLines(asNode(transaction.RmtInf))),
        entryRef: text(refs?.AcctSvcrRef) ?? (entryRef ? `${entryRef}${suffix}` : `${fallbackRef}${suffix}`),
        position: credits.length + 1,
        bookingDate,
        valueDate,
        // .08: Dbtr/Pty/Nm; up to .07: Dbtr/Nm.
        debtorName: text(asNode(debtor?.Pty)?.Nm) ?? text(debtor?.Nm),
        debtorAccount: text(debtorAccountId?.IBAN) ?? text(asNode(debtorAccountId?.Othr)?.Id),
        endToEndId: text(refs?.EndToEndId),
      });
    });
  });

  const seen = new Set<string>();
  for (const credit of credits) {
    if (seen.has(credit.entryRef)) {
      throw invalid(`${path}.Ntry`, `two credits carry the same reference ${credit.entryRef}`);
    }
    seen.add(credit.entryRef);
  }
  const digest = createHash('sha256')
    .update(JSON.stringify({ kind: context.kind, account, documentId, credits, skipped }))
    .digest('hex');
  return {
    kind: context.kind,
    messageDefinition: context.definition,
    messageId: context.messageId,
    documentId,
    account,
    createdAt: text(node.CreDtTm),
    credits,
    skipped,
    digest,
  };
}

/** Strd/CdtrRefInf/Ref first (the reference the payer was given), then every Ustrd line. */
function remittanceLines(remittance: XmlNode | undefined): string[] {
  if (!remittance) return [];
  const structured = nodes(remittance.Strd)
    .map((strd) => text(asNode(strd.CdtrRefInf)?.Ref))
    .filter((ref): ref is string => ref !== undefined);
  const unstructured = (Array.isArray(remittance.Ustrd) ? remittance.Ustrd : [])
    .map(text)
    .filter((line): line is string => line !== undefined);
  return [...structured, ...unstructured];
}

function remittanceOf(lines: string[]): Pick<StatementCredit, 'remittance' | 'idn' | 'idnAmbiguous'> {
  const remittance = lines.join(' ').slice(0, 1000);
  const candidates = idnCandidates(lines);
  return {
    remittance,
    idn: candidates.length === 1 ? candidates[0] : undefined,
    idnAmbiguous: candidates.length > 1,
  };
}

/** Ten digits standing alone (not part of a longer number), distinct, in order of appearance. */
export function idnCandidates(lines: readonly string[]): string[] {
  const found = new Set<string>();
  for (const line of lines) for (const match of line.matchAll(/(?<!\d)\d{10}(?!\d)/g)) found.add(match[0]);
  return [...found];
}

/** Minor units of currencies with 2 decimals (the gateway's obligations are in BGN and EUR). */
const AMOUNT = /^(\d{1,13})(?:\.(\d{1,5}))?$/;

function amountOf(node: unknown, path: string): { amountMinor: number; currency: string } {
  const value = text(node);
  const currency = text(asNode(node)?.['@Ccy']);
  if (!value || !currency || !/^[A-Z]{3}$/.test(currency)) {
    throw invalid(path, 'an amount needs a value and a Ccy attribute of three letters');
  }
  const match = AMOUNT.exec(value);
  const fraction = (match?.[2] ?? '').replace(/0+$/, '');
  if (!match || fraction.length > 2) {
    throw invalid(path, `${value} is not an amount in minor units of ${currency}`);
  }
  const amountMinor = Number(match[1]) * 100 + Number(fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) throw invalid(path, 'must be positive');
  return { amountMinor, currency };
}

/** BookgDt / ValDt: `<Dt>` or `<DtTm>`. */
function dateOf(node: unknown): string | undefined {
  const date = asNode(node);
  return text(date?.Dt) ?? text(date?.DtTm);
}

const invalid = (field: string, message: string) =>
  new StatementDocumentError('statement_invalid', `The statement is not valid: ${message}`, field);

function asNode(value: unknown): XmlNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as XmlNode)
    : undefined;
}

function nodes(value: unknown): XmlNode[] {
  return (Array.isArray(value) ? value : [value]).map(asNode).filter((node) => node !== undefined);
}

/** The text of an element: a plain string, or `#text` of an element with attributes. */
function text(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : asNode(value)?.['#text'];
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined;
}

// --- identity -------------------------------------------------------------------------------------

/**
 * The gateway's id of a statement: derived from its identity (kind, account, Stmt/Ntfctn Id), so the
 * same statement uploaded twice, or dropped in the folder and uploaded, is one statement.
 */
export function statementIdOf(statement: Pick<BankStatement, 'kind' | 'account' | 'documentId'>): string {
  const identity = `${statement.kind}\n${statement.account}\n${statement.documentId}`;
  return `st_${createHash('sha256').update(identity).digest('hex').slice(0, 24)}`;
}

/**
 * STAN and BCODE the merchant is told for a payment by bank transfer: six digits derived from the
 * statement credit (its bank reference), so a retried settlement says the same thing.
 */
export function statementPaymentCodes(
  statementId: string,
  entryRef: string,
): { stan: string; bcode: string } {
  const digest = createHash('sha256').update(`${statementId}\n${entryRef}`).digest();
  const six = (offset: number) => String(digest.readUInt32BE(offset) % 1_000_000).padStart(6, '0');
  return { stan: six(0), bcode: six(4) };
}
