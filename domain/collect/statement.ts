import { createHash } from 'node:crypto';
import { XMLValidator } from 'fast-xml-parser';
import { decodeStatementBytes } from './statement-encoding.ts';
import { readEntry } from './statement-entries.ts';
import {
  type BankStatement,
  type CamtKind,
  camtKinds,
  type StatementCredit,
  StatementDocumentError,
} from './statement-model.ts';
import {
  asNode,
  cutEntries,
  DEFINITION,
  DTD,
  ENTRY_PLACEHOLDER,
  findDocument,
  MESSAGES,
  NAMESPACE,
  nodes,
  parser,
  text,
  type XmlNode,
} from './statement-xml.ts';

export { decodeStatementBytes } from './statement-encoding.ts';
export { idnCandidates } from './statement-entries.ts';
export {
  type BankStatement,
  type CamtKind,
  camtKinds,
  type StatementCredit,
  StatementDocumentError,
  type StatementProblemCode,
} from './statement-model.ts';

/**
 * Bank statements in ISO 20022 camt (docs/collect.md, "Bank statements"; decisions 0031 and 0053): the
 * bank's end-of-day statement camt.053 (BkToCstmrStmt), its intraday report camt.052
 * (BkToCstmrAcctRpt) and notification camt.054 (BkToCstmrDbtCdtNtfctn), read into the booked credits
 * the gateway matches to obligations. Pure: the caller brings the bytes or the text, nothing here
 * touches a file, a database or the network.
 *
 * Message structure: ISO 20022 message definitions camt.052/053/054.001.02 to .08 (later versions
 * share the shape): the status is `<Sts>BOOK</Sts>` up to .07 and `<Sts><Cd>BOOK</Cd></Sts>` from .08,
 * the debtor's name `Dbtr/Nm` up to .07 and `Dbtr/Pty/Nm` from .08, a transaction's amount
 * `TxDtls/AmtDtls/TxAmt/Amt` in .02 and `TxDtls/Amt` from .03. The document may come alone or inside
 * a business application header envelope (`AppHdr` beside the `Document`, e.g. `BizMsgEnvlp`).
 *
 * Only the document is judged as a whole (not XML, a DTD, not a camt message, a statement without
 * identity or account: refused). Each entry is judged on its own: one that is unreadable, of amount
 * zero, repeated, a return or a reversal is kept with its problem, for the review list, and the
 * statement's other credits are imported.
 *
 * The parts: statement-model.ts (the types), statement-encoding.ts (bytes to text), statement-xml.ts
 * (the document's XML), statement-entries.ts (one entry into its credits); here, opening a document
 * into its statements and the statements' identity.
 */

/**
 * Reads a camt.052, camt.053 or camt.054 document (bytes, decoded as declared; or text) into its
 * statements (one per Rpt / Stmt / Ntfctn), every credit in memory. For tests and small documents;
 * the import reads with openStatementDocument, a chunk of credits at a time.
 */
export function readStatementDocument(input: string | Uint8Array): BankStatement[] {
  return openStatementDocument(input).map((reading) => {
    const credits: StatementCredit[] = [];
    for (const chunk of reading.credits(1000)) credits.push(...chunk);
    const { kind, messageDefinition, messageId, documentId, account, createdAt } = reading;
    const { skipped, digest } = reading.totals();
    return { kind, messageDefinition, messageId, documentId, account, createdAt, credits, skipped, digest };
  });
}

/** A statement's head, read when the document is opened; its entries are read by `credits`. */
export interface StatementReading extends Omit<BankStatement, 'credits' | 'skipped' | 'digest'> {
  /**
   * The statement's credits in statement order, at most `size` at a time: each entry is parsed when
   * its turn comes and nothing is kept but the keys seen (for `duplicate_entry`). Read once.
   */
  credits(size: number): Generator<StatementCredit[]>;
  /** Known once `credits` has been read to its end. */
  totals(): { credits: number; skipped: BankStatement['skipped']; digest: string };
}

/**
 * Opens a camt.052, camt.053 or camt.054 document (bytes, decoded as declared; or text): its
 * statements' heads (one per Rpt / Stmt / Ntfctn), each reading its entries when asked. Refuses what
 * is not one: malformed XML, any DTD, another message, a statement without identity or account. Entries
 * are judged one by one (StatementCredit `problem`), never the document for one of them.
 *
 * The document is never parsed whole: its entries (`Ntry`) are cut out of the text, the rest (the
 * statements' heads) is parsed, and each entry is parsed alone when its credits are read, so a
 * statement of 10,000 credits costs its text and one chunk of credits, not a tree of the document.
 */
export function openStatementDocument(input: string | Uint8Array): StatementReading[] {
  const xml = typeof input === 'string' ? input : decodeStatementBytes(input);
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
  const { skeleton, ranges } = cutEntries(xml);
  const { document, headerDefinition } = findDocument(asNode(parser.parse(skeleton)) ?? {});
  // The default namespace, or the one a prefix (`xmlns:camt`) declares; else the header's MsgDefIdr.
  const namespaces = Object.entries(document ?? {})
    .filter(([name]) => name === '@xmlns' || name.startsWith('@xmlns:'))
    .map(([, value]) => text(value) ?? '');
  const namespace = namespaces.find((uri) => NAMESPACE.test(uri));
  const definition = (namespace ? NAMESPACE.exec(namespace)?.[1] : undefined) ?? headerDefinition;
  const [, family, version] = DEFINITION.exec(definition ?? '') ?? [];
  const kind = camtKinds.find((candidate) => candidate === family);
  const shape = kind ? MESSAGES[kind] : undefined;
  const message = shape ? asNode(document?.[shape.message]) : undefined;
  if (!document || !definition || !kind || !shape || !message || Number(version) < 2) {
    throw new StatementDocumentError(
      'statement_unsupported_document',
      `Not a camt.052 (BkToCstmrAcctRpt), camt.053 (BkToCstmrStmt) or camt.054 (BkToCstmrDbtCdtNtfctn) ` +
        `document of version 02 or later${namespace || namespaces[0] ? ` (namespace ${namespace ?? namespaces[0]})` : ''}`,
      'Document',
    );
  }
  const messageId = text(asNode(message.GrpHdr)?.MsgId);
  if (!messageId) throw invalid('GrpHdr.MsgId', 'the message has no MsgId');
  const parts = nodes(message[shape.part]);
  if (parts.length === 0) throw invalid(shape.part, `the message has no ${shape.part}`);
  const entryAt = (at: number): XmlNode => {
    const fragment = xml.slice(ranges[2 * at], ranges[2 * at + 1]);
    return nodes(asNode(parser.parse(fragment))?.Ntry)[0] ?? {};
  };
  return parts.map((part, index) =>
    openStatement(part, entryAt, { kind, definition, messageId, path: `${shape.part}[${index + 1}]` }),
  );
}

function openStatement(
  node: XmlNode,
  entryAt: (at: number) => XmlNode,
  context: { kind: CamtKind; definition: string; messageId: string; path: string },
): StatementReading {
  const { path } = context;
  const documentId = text(node.Id);
  if (!documentId) throw invalid(`${path}.Id`, 'the statement has no Id');
  const accountId = asNode(asNode(node.Acct)?.Id);
  const account = text(accountId?.IBAN) ?? text(asNode(accountId?.Othr)?.Id);
  if (!account) throw invalid(`${path}.Acct.Id`, 'the statement names no account (IBAN or Othr/Id)');
  const entries = nodes(node[ENTRY_PLACEHOLDER]).map((placeholder) => Number(text(placeholder['@at'])));

  let totals: ReturnType<StatementReading['totals']> | undefined;
  function* credits(size: number): Generator<StatementCredit[]> {
    const occurrences = new Map<string, number>();
    const skipped = { debits: 0, notBooked: 0 };
    // The digest is the SHA-256 of JSON.stringify({kind, account, documentId, credits, skipped}),
    // written piece by piece as the credits are read.
    const digest = createHash('sha256').update(
      `{"kind":${JSON.stringify(context.kind)},"account":${JSON.stringify(account)},"documentId":${JSON.stringify(documentId)},"credits":[`,
    );
    let position = 0;
    let chunk: StatementCredit[] = [];
    for (const [entryIndex, at] of entries.entries()) {
      const entry = entryAt(at);
      const entryPath = `${path}.Ntry[${entryIndex + 1}]`;
      const read = readEntry(entry, entryPath);
      if (read === 'debit') skipped.debits++;
      else if (read === 'not_booked') skipped.notBooked++;
      else {
        const entryRef = text(entry.AcctSvcrRef) ?? text(entry.NtryRef) ?? `${documentId}#${entryIndex + 1}`;
        const keys = creditKeys(entryRef, read);
        for (const [index, { transactionRef: _, ...credit }] of read.entries()) {
          // A reversed credit often carries the references of the credit it reverses: its own key apart.
          let key =
            credit.problem?.reason === 'credit_reversed'
              ? `${REVERSAL_KEY}${keys[index]}`
              : (keys[index] as string);
          // The same key twice in one statement: the bank listed one booking twice, or two bookings
          // under one reference. Which is a person's question; the second waits in review under its own key.
          const seen = (occurrences.get(key) ?? 0) + 1;
          occurrences.set(key, seen);
          if (seen > 1) {
            credit.problem ??= {
              reason: 'duplicate_entry',
              detail: `${entryPath}: the bank reference ${key} occurs ${seen} times in the statement`,
            };
            key = `${key}#${seen}`;
          }
          const stored = { ...credit, entryRef: key, position: ++position };
          digest.update(`${position > 1 ? ',' : ''}${JSON.stringify(canonical(stored))}`);
          chunk.push(stored);
        }
      }
      if (chunk.length >= size) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
    totals = {
      credits: position,
      skipped,
      digest: digest.update(`],"skipped":${JSON.stringify(skipped)}}`).digest('hex'),
    };
  }
  return {
    kind: context.kind,
    messageDefinition: context.definition,
    messageId: context.messageId,
    documentId,
    account,
    createdAt: text(node.CreDtTm),
    credits,
    totals() {
      if (!totals) throw new Error(`the credits of statement ${documentId} have not been read to the end`);
      return totals;
    },
  };
}

/**
 * A credit's fields in the order the digest has always had them (statements imported before keep
 * their digest: the same document again is a duplicate, not a conflict); undefined ones drop out.
 */
const canonical = (credit: StatementCredit) => ({
  amountMinor: credit.amountMinor,
  currency: credit.currency,
  remittance: credit.remittance,
  idn: credit.idn,
  idnAmbiguous: credit.idnAmbiguous,
  entryRef: credit.entryRef,
  position: credit.position,
  bookingDate: credit.bookingDate,
  valueDate: credit.valueDate,
  debtorName: credit.debtorName,
  debtorAccount: credit.debtorAccount,
  endToEndId: credit.endToEndId,
  problem: credit.problem,
});

/**
 * The keys of an entry's credits. One transaction: its own AcctSvcrRef, else the entry's. A batch
 * (several TxDtls under one entry): the transactions' AcctSvcrRefs when each has one and no two are
 * alike; otherwise (banks often repeat the entry's reference in every transaction of a batch) the
 * entry's reference with `/n` for the n-th transaction. Either way the key is the same in the
 * notification and in the statement that books the same entry.
 */
export function creditKeys(
  entryRef: string,
  credits: readonly { transactionRef?: string | undefined }[],
): string[] {
  if (credits.length === 1) return [credits[0]?.transactionRef ?? entryRef];
  const refs = credits.map((credit) => credit.transactionRef);
  const distinct = refs.every((ref) => ref !== undefined) && new Set(refs).size === refs.length;
  return credits.map((credit, index) =>
    distinct && credit.transactionRef ? credit.transactionRef : `${entryRef}/${index + 1}`,
  );
}

/** The key of a reversal of a credit is `RVSL:` and the reversed credit's reference. */
export const REVERSAL_KEY = 'RVSL:';

const invalid = (field: string, message: string) =>
  new StatementDocumentError('statement_invalid', `The statement is not valid: ${message}`, field);

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
