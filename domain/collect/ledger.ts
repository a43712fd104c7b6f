import type { ObligationKind } from './obligation.ts';
import type { providerRecipientTypes } from './payloads.ts';
import type { SettlementSource } from './processes.ts';

/**
 * The gateway's double-entry ledger: which accounts exist and what every movement of money posts.
 * Pure (no I/O), safe in workflow code; activities/collect/ledger.ts writes what these rules return.
 *
 * Amounts are integer minor units, signed: a debit is positive, a credit negative, so every ledger
 * transaction sums to zero per currency and so do all accounts together. An asset account (desk cash,
 * bank, acquirer receivable) normally has a positive sum; a liability (merchant, provider account,
 * payouts owed) or income (fees) account a negative one: `balanceOf` shows each on its normal side.
 * docs/collect.md "Ledger" and docs/decisions/0029-collect-ledger.md explain the design.
 */

export const ledgerAccountKinds = [
  /** What the gateway owes a merchant (MIN): settled payments in, payouts, sends and fees out. */
  'merchant',
  /** Money reserved for cash payouts registered and not yet collected or expired. */
  'payouts_owed',
  /** Cash in an office's (or ATM's) drawer, per office id. */
  'desk_cash',
  /** The gateway's bank account, credited by the transfers read from bank statements. */
  'bank_settlement',
  /** What a card acquirer owes the gateway for captured card payments, per acquirer id. */
  'acquirer',
  /** A customer's account with the provider (send.cgi), per provider account id (`KIN:123`). */
  'provider',
  /** The gateway's fees. */
  'fees',
] as const;
export type LedgerAccountKind = (typeof ledgerAccountKinds)[number];

const ASSET_KINDS: readonly LedgerAccountKind[] = ['desk_cash', 'bank_settlement', 'acquirer'];

/** Ledger account names: `<kind>` or `<kind>:<id>`; one balance per account and currency. */
export const ledgerAccount = {
  merchant: (min: string) => `merchant:${min}`,
  payoutsOwed: 'payouts_owed',
  deskCash: (officeId: string) => `desk_cash:${officeId}`,
  bankSettlement: 'bank_settlement',
  acquirer: (acquirerId: string) => `acquirer:${acquirerId}`,
  provider: (providerAccountId: string) => `provider:${providerAccountId}`,
  fees: 'fees',
} as const;

export function accountKindOf(account: string): LedgerAccountKind | undefined {
  const kind = account.split(':', 1)[0];
  return ledgerAccountKinds.find((known) => known === kind);
}

/** The account's balance on its normal side (a merchant's positive balance is what it is owed). */
export function balanceOf(account: string, debitSumMinor: number): number {
  const kind = accountKindOf(account);
  const balance = kind && ASSET_KINDS.includes(kind) ? debitSumMinor : -debitSumMinor;
  return balance === 0 ? 0 : balance; // no -0 in answers
}

// --- provider accounts -------------------------------------------------------------------------

type ProviderRecipientKind = (typeof providerRecipientTypes)[number];

/**
 * The id of the provider account a send.cgi credits: `<RCPT_TYPE>:<RCPT>`, e-mail lower-cased and a
 * phone number without its `+`, so that one person's account has one id however it is written.
 */
export function providerAccountId(recipientType: ProviderRecipientKind, recipient: string): string {
  const value =
    recipientType === 'EMAIL'
      ? recipient.trim().toLowerCase()
      : recipientType === 'GSM'
        ? recipient.trim().replace(/^\+/, '')
        : recipient.trim();
  return `${recipientType}:${value}`;
}

export const PROVIDER_ACCOUNT_ID = /^(KIN:\d{1,20}|EMAIL:[^\s:@]+@[^\s:@]+|GSM:\d{6,15})$/;

// --- postings ------------------------------------------------------------------------------------

/** One line of a ledger transaction: debit positive, credit negative. */
export interface Posting {
  account: string;
  currency: string;
  amountMinor: number;
}

export const ledgerTransactionKinds = [
  'settlement',
  'payout_reserved',
  'payout_released',
  'transfer',
  /** A bank statement credit reversed by the bank (RvslInd): its settlement negated (decision 0063). */
  'settlement_reversed',
] as const;
export type LedgerTransactionKind = (typeof ledgerTransactionKinds)[number];

/** A balanced set of postings, written once under its `key` (a retry finds the key and posts nothing). */
export interface LedgerTransaction {
  key: string;
  kind: LedgerTransactionKind;
  idn?: string | undefined;
  postings: Posting[];
}

export const ledgerKeys = {
  settlement: (idn: string) => `settlement:${idn}`,
  /**
   * The settlement of an obligation's payment after `round` payments were taken back (decision 0063):
   * the first keeps `settlement:<idn>`, later ones `settlement:<idn>#<round + 1>`.
   */
  settlementOfRound: (idn: string, round: number) =>
    round === 0 ? `settlement:${idn}` : `settlement:${idn}#${round + 1}`,
  /** Its reversal: the payment of round `round - 1` taken back. */
  settlementReversed: (idn: string, round: number) =>
    round === 1 ? `settlement-reversed:${idn}` : `settlement-reversed:${idn}#${round}`,
  payoutReserved: (idn: string) => `payout-reserved:${idn}`,
  payoutReleased: (idn: string) => `payout-released:${idn}`,
  transfer: (reference: string) => `transfer:${reference}`,
  billing: (tid: string) => `billing:${tid}`,
} as const;

/** Per currency, what the postings do not balance by (empty when they balance). */
export function imbalanceOf(postings: readonly Posting[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const { currency, amountMinor } of postings)
    sums.set(currency, (sums.get(currency) ?? 0) + amountMinor);
  for (const [currency, sum] of sums) if (sum === 0) sums.delete(currency);
  return sums;
}

/**
 * Nets the postings per account and currency, drops zeros, and checks the result: every amount a
 * safe integer, every currency balanced. A rule that breaks this is a bug, never a posting.
 */
export function balancedPostings(postings: readonly Posting[]): Posting[] {
  const netted = new Map<string, Posting>();
  for (const posting of postings) {
    if (!Number.isSafeInteger(posting.amountMinor))
      throw new Error(`not a whole amount: ${posting.amountMinor}`);
    const key = `${posting.account}\u0000${posting.currency}`;
    const line = netted.get(key);
    if (line) line.amountMinor += posting.amountMinor;
    else netted.set(key, { ...posting });
  }
  const lines = [...netted.values()].filter((line) => line.amountMinor !== 0);
  const imbalance = imbalanceOf(lines);
  if (imbalance.size > 0) throw new Error(`unbalanced postings: ${JSON.stringify([...imbalance])}`);
  return lines;
}

/** One debit and one credit of `amountMinor`. */
const entry = (debit: string, credit: string, currency: string, amountMinor: number): Posting[] => [
  { account: debit, currency, amountMinor },
  { account: credit, currency, amountMinor: -amountMinor },
];

// --- fees ----------------------------------------------------------------------------------------

/**
 * The gateway's fee on a merchant's settled payment, payout or send: `bps` basis points of the amount,
 * rounded half up to a whole minor unit (COLLECT_FEE_BPS, 0 by default). Provider-account movements
 * pay no fee.
 */
export function feeOf(amountMinor: number, bps: number): number {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new Error(`bad amount ${amountMinor}`);
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new Error(`bad fee rate ${bps}`);
  return Math.floor((amountMinor * bps + 5_000) / 10_000);
}

// --- obligations -----------------------------------------------------------------------------------

/** What the ledger needs of an obligation (its read-model row). */
export interface LedgerObligation {
  idn: string;
  kind: ObligationKind;
  merchantMin: string;
  currency: string;
  amountMinor: number;
  /** payout_office paid from a provider account instead of the merchant (its provider account id). */
  fundedBy?: string | undefined;
}

/** The account a payout is reserved from: the merchant's, or the provider account that funds it. */
export const payoutFundingAccount = (obligation: LedgerObligation) =>
  obligation.fundedBy
    ? ledgerAccount.provider(obligation.fundedBy)
    : ledgerAccount.merchant(obligation.merchantMin);

/** The account of the channel money came in (or, for a payout or send, went out) through. */
function sourceAccount(source: SettlementSource): string {
  switch (source.channel) {
    case 'cash_desk':
      return ledgerAccount.deskCash(source.officeId);
    case 'bank_statement':
      return ledgerAccount.bankSettlement;
    case 'card':
      return ledgerAccount.acquirer(source.acquirer);
    case 'provider_account':
      return ledgerAccount.provider(source.account);
  }
}

/** The channels that may settle an obligation of each kind (the workflow refuses the others). */
export const settlementChannels: Record<ObligationKind, readonly SettlementSource['channel'][]> = {
  office_bill: ['cash_desk', 'bank_statement'],
  deposit_slip: ['cash_desk', 'bank_statement'],
  bank_transfer: ['cash_desk', 'bank_statement'],
  online_payment: ['card'],
  preauth: ['card'],
  card_charge: ['card'],
  payout_office: ['cash_desk'],
  payout_provider: ['provider_account'],
};

/**
 * A payout_office is registered: its amount is reserved from the merchant (or the funding provider
 * account) into payouts owed until it is collected or expires. A merchant's balance may go negative
 * (decision 0029); a provider account's may not (the API checks before it reserves).
 */
export function payoutReservation(obligation: LedgerObligation): LedgerTransaction {
  if (obligation.kind !== 'payout_office') throw new Error(`${obligation.kind} reserves nothing`);
  return {
    key: ledgerKeys.payoutReserved(obligation.idn),
    kind: 'payout_reserved',
    idn: obligation.idn,
    postings: balancedPostings(
      entry(
        payoutFundingAccount(obligation),
        ledgerAccount.payoutsOwed,
        obligation.currency,
        obligation.amountMinor,
      ),
    ),
  };
}

/**
 * A payment taken back by the bank (decision 0063): the settlement of round `round - 1` negated, fee
 * included (the payment never happened), under its own key so a retry posts nothing twice.
 */
export function settlementReversal(
  idn: string,
  round: number,
  settled: readonly Posting[],
): LedgerTransaction {
  if (settled.length === 0) throw new Error(`no settlement of ${idn} to reverse`);
  return {
    key: ledgerKeys.settlementReversed(idn, round),
    kind: 'settlement_reversed',
    idn,
    postings: balancedPostings(settled.map((line) => ({ ...line, amountMinor: -line.amountMinor }))),
  };
}

/** An expired payout_office gives back exactly what was reserved for it. */
export function payoutRelease(idn: string, reserved: readonly Posting[]): LedgerTransaction {
  return {
    key: ledgerKeys.payoutReleased(idn),
    kind: 'payout_released',
    idn,
    postings: balancedPostings(reserved.map((line) => ({ ...line, amountMinor: -line.amountMinor }))),
  };
}

/**
 * The postings of a PAID obligation, `paidAmountMinor` having come through `source`:
 * - office_bill, deposit_slip, bank_transfer, online_payment, preauth, card_charge: the desk's cash, the bank
 *   account or the acquirer receivable is debited, the merchant credited less the fee;
 * - payout_office (collected at a desk): payouts owed pays the desk's cash out; the fee is the
 *   merchant's (a payout funded by a provider account pays none);
 * - payout_provider: the merchant pays the provider account, plus the fee.
 */
export function settlementPostings(
  obligation: LedgerObligation,
  paidAmountMinor: number,
  source: SettlementSource,
  feeBps: number,
): LedgerTransaction {
  const { kind, currency } = obligation;
  if (!settlementChannels[kind].includes(source.channel)) {
    throw new Error(`a ${kind} is not settled through ${source.channel}`);
  }
  if (!Number.isSafeInteger(paidAmountMinor) || paidAmountMinor <= 0) throw new Error('nothing was paid');
  const merchant = ledgerAccount.merchant(obligation.merchantMin);
  const channelAccount = sourceAccount(source);
  const postings =
    kind === 'payout_office'
      ? entry(ledgerAccount.payoutsOwed, channelAccount, currency, paidAmountMinor)
      : kind === 'payout_provider'
        ? entry(merchant, channelAccount, currency, paidAmountMinor)
        : entry(channelAccount, merchant, currency, paidAmountMinor);
  const feePayer = kind === 'payout_office' && obligation.fundedBy ? undefined : merchant;
  if (feePayer)
    postings.push(...entry(feePayer, ledgerAccount.fees, currency, feeOf(paidAmountMinor, feeBps)));
  return {
    key: ledgerKeys.settlement(obligation.idn),
    kind: 'settlement',
    idn: obligation.idn,
    postings: balancedPostings(postings),
  };
}

/**
 * An IDN of a merchant's billing system paid at a desk (no obligation row: the `billing-<idn>-<tid>`
 * workflow): posted like an office bill once the office has taken the money, under the payment's TID.
 */
export function billingSettlement(
  payment: { tid: string; idn: string; merchantMin: string; currency: string; amountMinor: number },
  source: SettlementSource,
  feeBps: number,
): LedgerTransaction {
  const asBill: LedgerObligation = { ...payment, kind: 'office_bill' };
  return {
    ...settlementPostings(asBill, payment.amountMinor, source, feeBps),
    key: ledgerKeys.billing(payment.tid),
  };
}

/** A transfer between two provider accounts (no fee). */
export function providerTransfer(
  reference: string,
  from: string,
  to: string,
  currency: string,
  amountMinor: number,
): LedgerTransaction {
  if (from === to) throw new Error('a transfer needs two accounts');
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0)
    throw new Error('a transfer moves a positive amount');
  return {
    key: ledgerKeys.transfer(reference),
    kind: 'transfer',
    postings: balancedPostings(
      entry(ledgerAccount.provider(from), ledgerAccount.provider(to), currency, amountMinor),
    ),
  };
}
