/**
 * Rules of bulk payments (docs/openbanking.md, "Bulk payments"; decision 0034), shared by the API, the
 * bulk workflow and its activities. Pure: no I/O, safe to import from workflow code.
 */

/** The four bulk operations of version 8; `request`/`budget-request` pay from an added account (ibanId). */
export const BULK_KINDS = ['payment', 'request', 'budget-payment', 'budget-request'] as const;
export type BulkKind = (typeof BULK_KINDS)[number];

export const isBudgetBulk = (kind: BulkKind) => kind === 'budget-payment' || kind === 'budget-request';
export const fromAddedAccount = (kind: BulkKind) => kind === 'request' || kind === 'budget-request';

/**
 * States of a bulk:
 *
 *   AWAITING_SCA ─┬─ the user approved at the bank ─────────────────→ PROCESSING
 *                 ├─ denied at the bank, or no callback in time ──────→ FAILED (every entry FAILED)
 *                 └─ the bank refused the bulk request ───────────────→ FAILED (every entry FAILED)
 *   PROCESSING ───── every entry recorded from the bank ─────────────→ CONFIRMED | PARTIALLY_CONFIRMED | FAILED
 *
 * CONFIRMED: every entry confirmed; PARTIALLY_CONFIRMED: some confirmed, some failed; FAILED: none
 * confirmed. One failing entry never fails the others.
 */
export const BULK_STATES = [
  'AWAITING_SCA',
  'PROCESSING',
  'CONFIRMED',
  'PARTIALLY_CONFIRMED',
  'FAILED',
] as const;
export type BulkState = (typeof BULK_STATES)[number];
export const FINAL_BULK_STATES: readonly BulkState[] = ['CONFIRMED', 'PARTIALLY_CONFIRMED', 'FAILED'];

/** The overall state once no entry is WAITING (while some are, the bulk is PROCESSING). */
export function overallBulkState(counts: { total: number; confirmed: number; failed: number }): BulkState {
  if (counts.confirmed + counts.failed < counts.total) return 'PROCESSING';
  if (counts.confirmed === counts.total) return 'CONFIRMED';
  if (counts.confirmed === 0) return 'FAILED';
  return 'PARTIALLY_CONFIRMED';
}

/** Entries per bulk request; a bigger one is refused (400 naming `payments`). */
export const MAX_BULK_ENTRIES = 10_000;

/** One batch of a bulk: entries with `seq` in [fromSeq, toSeq) (seq counts from 0 in request order). */
export interface BulkBatch {
  index: number;
  fromSeq: number;
  toSeq: number;
}

/** The bulk's entries cut into batches of at most `size`, in order. */
export function batchesOf(total: number, size: number): BulkBatch[] {
  const batches: BulkBatch[] = [];
  for (let fromSeq = 0, index = 0; fromSeq < total; fromSeq += size, index += 1)
    batches.push({ index, fromSeq, toSeq: Math.min(total, fromSeq + size) });
  return batches;
}

/** The `payment.finished` event of a bulk (one per bulk, never one per entry), signed as a JWS body. */
export interface BulkFinishedEvent {
  iss: string;
  jti: string;
  iat: number;
  type: 'payment.finished';
  state: string;
  /** Set for a bulk (a single payment's event carries its `code` instead). */
  bulkId: string;
  userId: string;
  bankHash: string;
  kind: BulkKind;
  status: BulkState;
  entries: number;
  confirmed: number;
  failed: number;
  reason: string | null;
}

/** Entries of a bulk read from the bank, as the batch step records them. */
export interface BankBulkEntry {
  endToEndIdentification: string;
  transactionStatus: string;
  reasonCode: string | null;
}

/** The endToEndIdentification of an entry at the bank: its payment code without `pay_` (32 hex ≤ 35). */
export const endToEndIdOf = (code: string) => code.replace(/^pay_/, '');
/** The bulk's paymentInformationId at the bank: its id without `blk_`. */
export const paymentInformationIdOf = (bulkId: string) => bulkId.replace(/^blk_/, '');
