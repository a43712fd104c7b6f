import type { StatementCredit } from './statement-model.ts';
import { asNode, nodes, text, type XmlNode } from './statement-xml.ts';

/**
 * One entry (`Ntry`) of a camt statement into its credits: the amount, dates, remittance information
 * (and the IDN in it), the debtor, and the problem that sends a credit to the review list.
 */

/** One transaction of an entry as read, before its key is known. */
export interface ReadCredit extends Omit<StatementCredit, 'entryRef' | 'position'> {
  /** TxDtls/Refs/AcctSvcrRef. */
  transactionRef?: string | undefined;
}

const REVERSAL = new Set(['true', '1']);

/**
 * One entry: a debit or an entry not booked (counted, not imported), or its credits, each with its
 * problem when it cannot settle anything by itself.
 */
export function readEntry(entry: XmlNode, entryPath: string): 'debit' | 'not_booked' | ReadCredit[] {
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
