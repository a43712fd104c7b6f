import type { ConsentAccess, ConsentStatus, Transaction } from './xs2a.ts';

/**
 * Rules of the consent + SCA flow and of the account read model, shared by the API, the consent
 * workflow and its activities. Pure: no I/O, safe to import from workflow code. How callers talk to the
 * consent's workflows (ids, signals, inputs) is in processes.ts.
 */

/**
 * The gateway's consent states (docs/openbanking.md, "Consent states"):
 *
 *   AWAITING_SCA ─┬─ bank consent valid after the callback ─────────────→ ACTIVE
 *                 ├─ the user denied at the bank (or Nok redirect) ────────→ REJECTED
 *                 ├─ no callback within OPENBANKING_SCA_TIMEOUT ─────────→ ABANDONED
 *                 ├─ the bank says expired when checked ───────────────────→ EXPIRED
 *                 ├─ the bank could not be reached / refused the request ─→ FAILED
 *                 └─ its user deleted (DELETE agent/user) ─────────────────→ TERMINATED
 *   ACTIVE ──────┬─ validUntil passed (end of that day, or seen on a refresh) → EXPIRED
 *                ├─ revoked by the user at the bank (seen on a refresh) ──→ REVOKED
 *                └─ its last account deleted (DELETE iban), or its user ──→ TERMINATED
 *   ACTIVE is also where a one-shot account-list consent ends: the list is stored and the bank
 *   consent terminated at once (it is never read again).
 */
export const CONSENT_STATES = [
  'AWAITING_SCA',
  'ACTIVE',
  'REJECTED',
  'ABANDONED',
  'EXPIRED',
  'FAILED',
  'REVOKED',
  'TERMINATED',
] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/** The outcomes that end the consent + SCA workflow (each reported to the hook). */
export type ConsentOutcome = Extract<
  ConsentState,
  'ACTIVE' | 'REJECTED' | 'ABANDONED' | 'EXPIRED' | 'FAILED' | 'REVOKED'
>;

/** What a consent is for: account information (accounts, balances, transactions) or a one-shot account list. */
export const CONSENT_KINDS = ['ais', 'account-list'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

export const CONSENT_SCOPES = ['accounts', 'balances', 'transactions'] as const;
export type ConsentScope = (typeof CONSENT_SCOPES)[number];

/** Why the gateway ends a consent at the bank (the consent becomes TERMINATED). */
export const CONSENT_END_REASONS = {
  iban_deleted: 'its last account was deleted (DELETE iban)',
  user_deleted: 'its user was deleted (DELETE agent/user)',
} as const;
export type ConsentEndReason = keyof typeof CONSENT_END_REASONS;

/** `state`: 32 random bytes, base64url (43 characters); unguessable, it names the callback. */
export const STATE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** `app` in the callback path: the client application that started the consent. */
export const APP_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** ibanId: our opaque id of an account (never the IBAN). */
export const IBAN_ID_PATTERN = /^iba_[0-9a-f]{24}$/;
/** A bank's transaction id as it appears in our paths. */
export const TRANSACTION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** The gateway state a bank consent status maps to once the SCA callback has arrived. */
export function outcomeOfBankStatus(status: ConsentStatus): ConsentOutcome {
  switch (status) {
    case 'valid':
      return 'ACTIVE';
    case 'expired':
      return 'EXPIRED';
    case 'revokedByPsu':
    case 'terminatedByTpp':
      return 'REVOKED';
    // A callback while the bank still says `received` means the SCA did not complete (Nok, cancel).
    case 'received':
    case 'rejected':
      return 'REJECTED';
  }
}

/** An XS2A transaction as the gateway stores it (ob_transactions) and answers it (`Transaction`). */
export function transactionRecordOf(transaction: Transaction, bookingStatus: 'booked' | 'pending') {
  return {
    transactionId: transaction.transactionId,
    bookingStatus,
    bookingDate: transaction.bookingDate ?? null,
    valueDate: transaction.valueDate ?? null,
    amount: transaction.transactionAmount.amount,
    currency: transaction.transactionAmount.currency,
    creditorName: transaction.creditorName ?? null,
    creditorIban: transaction.creditorAccount?.iban ?? null,
    debtorName: transaction.debtorName ?? null,
    debtorIban: transaction.debtorAccount?.iban ?? null,
    remittanceInformation: transaction.remittanceInformationUnstructured ?? null,
    entryReference: transaction.entryReference ?? null,
    bankTransactionCode: transaction.bankTransactionCode ?? null,
  };
}

/** What to ask the bank for (XS2A `access`). */
export function accessOf(request: {
  kind: ConsentKind;
  scopes: readonly ConsentScope[];
  ibans: readonly string[];
}): ConsentAccess {
  if (request.kind === 'account-list') return { availableAccounts: 'allAccountsWithOwnerName' };
  const services = new Set<ConsentScope>(['accounts', ...request.scopes]);
  if (request.ibans.length === 0 && services.size === CONSENT_SCOPES.length) {
    return { allPsd2: 'allAccountsWithOwnerName' };
  }
  // Named IBANs, or empty lists: a bank-offered consent where the user picks the accounts at the bank.
  const references = request.ibans.map((iban) => ({ iban }));
  const access: ConsentAccess = {};
  for (const service of services) access[service] = references;
  return access;
}

/** The hook event of a finished consent (the payload of the signed JWS). */
export interface ConsentFinishedEvent {
  /** Issuer of the signed event (the gateway). */
  iss: string;
  /** Unique id of the event; the same for every attempt of its delivery. */
  jti: string;
  /** Seconds since the epoch, when the consent finished. */
  iat: number;
  type: 'consent.finished';
  state: string;
  consentId: string;
  userId: string;
  bankHash: string;
  kind: ConsentKind;
  status: ConsentOutcome;
  /** The bank's consent status when it was last read (null when the bank was never reached). */
  bankStatus: ConsentStatus | null;
  validUntil: string;
  /** The accounts added (ACTIVE ais consents), else empty. */
  accounts: { ibanId: string; iban: string; currency: string }[];
  /** Why it did not become ACTIVE, for people. */
  reason: string | null;
}

// ─── Scheduled refreshes of an ACTIVE consent ────────────────────────────────────────────────────

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Midnight UTC at the end of a YYYY-MM-DD day. */
const endOfDay = (day: string) => Date.parse(`${day}T00:00:00Z`) + DAY_MS;

/** Reads of a consent's accounts the gateway made on one UTC day (banks count frequencyPerDay per UTC day). */
export interface DailyReads {
  day: string;
  reads: number;
}

/** One more read at `nowMs`. */
export function countRead(reads: DailyReads, nowMs: number): DailyReads {
  const day = dayOf(nowMs);
  return day === reads.day ? { day, reads: reads.reads + 1 } : { day, reads: 1 };
}

/**
 * When the next scheduled refresh of an ACTIVE consent is due: `intervalMs` from now, but not while
 * today's `frequencyPerDay` reads are spent (then at the next midnight UTC), and not after the
 * consent's last day `validUntil`: then `expiresAt`, when the consent runs out instead.
 */
export function nextRefresh(input: {
  nowMs: number;
  intervalMs: number;
  frequencyPerDay: number;
  validUntil: string;
  reads: DailyReads;
}): { refreshAt: number } | { expiresAt: number } {
  let due = input.nowMs + input.intervalMs;
  if (dayOf(due) === input.reads.day && input.reads.reads >= input.frequencyPerDay)
    due = endOfDay(input.reads.day);
  const expiresAt = endOfDay(input.validUntil);
  return due >= expiresAt ? { expiresAt } : { refreshAt: due };
}
