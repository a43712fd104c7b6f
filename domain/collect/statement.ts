import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { EntryProblem } from './statement-matching.ts';

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

// --- bytes to text ---------------------------------------------------------------------------------

/** `<?xml version="1.0" encoding="ISO-8859-1"?>`: the declared encoding (XML 1.0, 4.3.3). */
const DECLARED_ENCODING = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._:-]*)["']/;

/**
 * The document's text, decoded as it says it is written: a byte order mark (UTF-8, UTF-16), else the
 * encoding its XML declaration names (ISO-8859-1, windows-1252, ...), else UTF-8 (XML's default).
 * Bytes that are not valid in that encoding, or an encoding no decoder knows, refuse the document.
 */
export function decodeStatementBytes(bytes: Uint8Array): string {
  const bom: [number[], string][] = [
    [[0xef, 0xbb, 0xbf], 'utf-8'],
    [[0xff, 0xfe], 'utf-16le'],
    [[0xfe, 0xff], 'utf-16be'],
  ];
  const marked = bom.find(([mark]) => mark.every((byte, index) => bytes[index] === byte));
  // UTF-16 without a mark still starts with `<` as two bytes.
  const unmarked16 =
    bytes[0] === 0x3c && bytes[1] === 0
      ? 'utf-16le'
      : bytes[0] === 0 && bytes[1] === 0x3c
        ? 'utf-16be'
        : undefined;
  // The declaration is ASCII in every ASCII-compatible encoding: read it as latin1.
  const prolog = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const label = marked?.[1] ?? unmarked16 ?? DECLARED_ENCODING.exec(prolog)?.[1] ?? 'utf-8';
  const decoder = (() => {
    try {
      return new TextDecoder(label, { fatal: true });
    } catch {
      throw new StatementDocumentError(
        'statement_unsupported_encoding',
        `The document declares the encoding ${label}, which cannot be read`,
      );
    }
  })();
  if (decoder.encoding === 'windows-1252') return decodeWindows1252(bytes);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new StatementDocumentError(
      'statement_malformed_xml',
      `The document is not valid ${label} (the encoding its XML declaration names, UTF-8 when none)`,
    );
  }
}

/** windows-1252's letters at 0x80-0x9F (undefined ones stay C1 controls, as the WHATWG table has them). */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * windows-1252 (and ISO-8859-1, which the Encoding Standard reads as it): Node 20's TextDecoder gives
 * 0x80-0x9F as C1 controls instead of `€`, `–`, `„` ..., so those 32 bytes are mapped here.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (let start = 0; start < bytes.length; start += 8192) {
    const chunk = bytes.subarray(start, start + 8192);
    text += String.fromCharCode(
      ...Array.from(chunk, (byte) =>
        byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1.charCodeAt(byte - 0x80) : byte,
      ),
    );
  }
  return text;
}

// --- reading -------------------------------------------------------------------------------------

type XmlNode = Record<string, unknown>;

/** Where an entry was cut out of the document (cutEntries): `<NtryAt at="k"/>`, k its range's index. */
const ENTRY_PLACEHOLDER = 'NtryAt';

/** Elements that may repeat in camt.052/053/054; the parser always gives them as arrays. */
const REPEATING = new Set([
  'Stmt',
  'Rpt',
  'Ntfctn',
  'Ntry',
  ENTRY_PLACEHOLDER,
  'NtryDtls',
  'TxDtls',
  'Ustrd',
  'Strd',
  'Bal',
]);

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

const DEFINITION = /^(camt\.05[234])\.001\.(\d{2})$/;
const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[234]\.001\.\d{2})$/;

/** Each kind's message element and its repeating part. */
const MESSAGES: Record<CamtKind, { message: string; part: string }> = {
  'camt.052': { message: 'BkToCstmrAcctRpt', part: 'Rpt' },
  'camt.053': { message: 'BkToCstmrStmt', part: 'Stmt' },
  'camt.054': { message: 'BkToCstmrDbtCdtNtfctn', part: 'Ntfctn' },
};

/**
 * The `Document` element, at the root or inside a business application header envelope (`AppHdr`
 * and `Document` side by side under any root, e.g. `BizMsgEnvlp`/`Hdr`/`AppHdr` + `Doc`/`Document`),
 * with the header's message definition (`AppHdr/MsgDefIdr`) when there is one.
 */
function findDocument(root: XmlNode): { document?: XmlNode; headerDefinition?: string } {
  let level: XmlNode[] = [root];
  let headerDefinition: string | undefined;
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    for (const node of level) {
      const header = asNode(node.AppHdr);
      if (header) headerDefinition ??= text(header.MsgDefIdr);
    }
    const found = level.map((node) => asNode(node.Document)).find((node) => node !== undefined);
    if (found) return { document: found, headerDefinition };
    level = level.flatMap((node) =>
      Object.entries(node)
        .filter(([name]) => !name.startsWith('@') && !name.startsWith('?') && name !== '#text')
        .flatMap(([, value]) => nodes(value)),
    );
  }
  return { headerDefinition };
}

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

/** One transaction of an entry as read, before its key is known. */
interface ReadCredit extends Omit<StatementCredit, 'entryRef' | 'position'> {
  /** TxDtls/Refs/AcctSvcrRef. */
  transactionRef?: string | undefined;
}

/** Statement parts whose `Ntry` children are cut out of the document (cutEntries). */
const PARTS = new Set(Object.values(MESSAGES).map(({ part }) => part));

/**
 * Cuts the entries (`Ntry` of a Stmt, Rpt or Ntfctn) out of a well-formed document: the skeleton
 * keeps a `<NtryAt at="k"/>` in the place of the k-th entry, whose text is `xml.slice(ranges[2k],
 * ranges[2k+1])`. A scan of the markup only (comments, CDATA, processing instructions and quoted
 * attribute values skipped), so the entries are never parsed here.
 */
function cutEntries(xml: string): { skeleton: string; ranges: number[] } {
  const ranges: number[] = [];
  const pieces: string[] = [];
  const open: string[] = [];
  let copied = 0;
  let entryStart = -1;
  let entryDepth = -1;
  const skipTo = (from: number, end: string) => {
    const at = xml.indexOf(end, from);
    return at < 0 ? xml.length : at + end.length;
  };
  for (let at = xml.indexOf('<'); at >= 0 && at < xml.length; at = xml.indexOf('<', at)) {
    if (xml.startsWith('<!--', at)) at = skipTo(at + 4, '-->');
    else if (xml.startsWith('<![CDATA[', at)) at = skipTo(at + 9, ']]>');
    else if (xml.startsWith('<?', at)) at = skipTo(at + 2, '?>');
    else if (xml.startsWith('<!', at)) at = skipTo(at + 2, '>');
    else {
      let end = at + 1;
      for (let quote = ''; end < xml.length; end++) {
        const char = xml[end];
        if (quote) {
          if (char === quote) quote = '';
        } else if (char === '"' || char === "'") quote = char;
        else if (char === '>') break;
      }
      const closing = xml[at + 1] === '/';
      const selfClosing = !closing && xml[end - 1] === '/';
      const name = /^[^\s/>]+/.exec(xml.slice(at + (closing ? 2 : 1), Math.min(end, at + 200)))?.[0] ?? '';
      const local = name.slice(name.indexOf(':') + 1);
      if (closing) open.pop();
      if (!closing && entryStart < 0 && local === 'Ntry' && PARTS.has(open.at(-1) ?? '')) {
        pieces.push(xml.slice(copied, at));
        copied = at;
        entryStart = at;
        entryDepth = open.length;
      }
      if (!closing && !selfClosing) open.push(local);
      at = end + 1;
      if (entryStart >= 0 && open.length === entryDepth) {
        pieces.push(`<${ENTRY_PLACEHOLDER} at="${ranges.length / 2}"/>`);
        ranges.push(entryStart, at);
        copied = at;
        entryStart = -1;
      }
    }
  }
  pieces.push(xml.slice(copied));
  return { skeleton: pieces.join(''), ranges };
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

const REVERSAL = new Set(['true', '1']);
/** The key of a reversal of a credit is `RVSL:` and the reversed credit's reference. */
export const REVERSAL_KEY = 'RVSL:';

/**
 * One entry: a debit or an entry not booked (counted, not imported), or its credits, each with its
 * problem when it cannot settle anything by itself.
 */
function readEntry(entry: XmlNode, entryPath: string): 'debit' | 'not_booked' | ReadCredit[] {
  const indicator = text(entry.CdtDbtInd);
  const reversal = REVERSAL.has(text(entry.RvslInd)?.toLowerCase() ?? '');
  // A debit is the gateway's own payment; a reversed credit (DBIT with RvslInd) takes a payment back.
  if (indicator === 'DBIT' && !reversal) return 'debit';
  // camt.05x.001.02-.07: <Sts>BOOK</Sts>; from .08: <Sts><Cd>BOOK</Cd></Sts>.
  const status = text(entry.Sts) ?? text(asNode(entry.Sts)?.Cd);
  if (status !== undefined && status !== 'BOOK') return 'not_booked';

  const base = { bookingDate: dateOf(entry.BookgDt), valueDate: dateOf(entry.ValDt) };
  const transactions = nodes(entry.NtryDtls).flatMap((details) => nodes(details.TxDtls));
  const entryProblem = (): StatementCredit['problem'] => {
    if (indicator !== 'CRDT' && indicator !== 'DBIT') {
      return { reason: 'unreadable_entry', detail: `${entryPath}.CdtDbtInd: must be CRDT or DBIT` };
    }
    if (status === undefined) return { reason: 'unreadable_entry', detail: `${entryPath}.Sts: no status` };
    if (indicator === 'DBIT') {
      return { reason: 'credit_reversed', detail: `${entryPath}: a reversal (RvslInd) of an earlier credit` };
    }
    if (reversal) {
      return {
        reason: 'reversal',
        detail: `${entryPath}: a reversal (RvslInd) of an earlier debit, not a payment`,
      };
    }
    return undefined;
  };

  if (transactions.length === 0) {
    const amount = amountOf(entry.Amt, `${entryPath}.Amt`);
    return [
      {
        ...base,
        ...amount.value,
        ...remittanceOf(text(entry.AddtlNtryInf) ? [text(entry.AddtlNtryInf) as string] : []),
        problem: entryProblem() ?? amount.problem,
      },
    ];
  }
  return transactions.map((transaction, txIndex) => {
    const txPath = `${entryPath}.NtryDtls.TxDtls[${txIndex + 1}]`;
    const refs = asNode(transaction.Refs);
    // .03 and later: TxDtls/Amt; .02: TxDtls/AmtDtls/TxAmt/Amt; one transaction may take the entry's.
    const own = transaction.Amt ?? asNode(asNode(transaction.AmtDtls)?.TxAmt)?.Amt;
    const amount =
      own !== undefined
        ? amountOf(own, `${txPath}.Amt`)
        : transactions.length === 1
          ? amountOf(entry.Amt, `${entryPath}.Amt`)
          : unreadable(`${txPath}.Amt`, 'a transaction of a batch entry has no amount');
    const parties = asNode(transaction.RltdPties);
    const debtor = asNode(parties?.Dbtr);
    const debtorAccountId = asNode(asNode(parties?.DbtrAcct)?.Id);
    const returned = asNode(transaction.RtrInf);
    const returnProblem: StatementCredit['problem'] = returned
      ? {
          reason: 'returned_payment',
          detail: `${txPath}.RtrInf: a returned payment (${text(asNode(returned.Rsn)?.Cd) ?? 'no reason code'}), not a customer's payment`,
        }
      : undefined;
    return {
      ...base,
      ...amount.value,
      ...remittanceOf(remittanceLines(asNode(transaction.RmtInf))),
      transactionRef: text(refs?.AcctSvcrRef),
      // .08: Dbtr/Pty/Nm; up to .07: Dbtr/Nm.
      debtorName: text(asNode(debtor?.Pty)?.Nm) ?? text(debtor?.Nm),
      debtorAccount: text(debtorAccountId?.IBAN) ?? text(asNode(debtorAccountId?.Othr)?.Id),
      endToEndId: text(refs?.EndToEndId),
      problem: entryProblem() ?? returnProblem ?? amount.problem,
    };
  });
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

interface AmountRead {
  value: { amountMinor: number; currency: string };
  problem?: StatementCredit['problem'];
}

const unreadable = (path: string, message: string, currency = ''): AmountRead => ({
  value: { amountMinor: 0, currency },
  problem: { reason: 'unreadable_entry', detail: `${path}: ${message}` },
});

/** An amount in minor units; an unreadable or zero one is the entry's problem, not the document's. */
function amountOf(node: unknown, path: string): AmountRead {
  const value = text(node);
  const currency = text(asNode(node)?.['@Ccy']);
  if (!value || !currency || !/^[A-Z]{3}$/.test(currency)) {
    return unreadable(
      path,
      'an amount needs a value and a Ccy attribute of three letters',
      currency?.slice(0, 3),
    );
  }
  const match = AMOUNT.exec(value);
  const fraction = (match?.[2] ?? '').replace(/0+$/, '');
  if (!match || fraction.length > 2) {
    return unreadable(path, `${value} is not an amount in minor units of ${currency}`, currency);
  }
  const amountMinor = Number(match[1]) * 100 + Number(fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(amountMinor)) return unreadable(path, `${value} is too large`, currency);
  if (amountMinor === 0) {
    return { value: { amountMinor, currency }, problem: { reason: 'zero_amount', detail: `${path}: 0` } };
  }
  return { value: { amountMinor, currency } };
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
