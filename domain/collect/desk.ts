import { createHash } from 'node:crypto';

/**
 * Cash desks (offices and ATMs, decision 0030): what an operation of a desk is, its receipt, its
 * STAN and BCODE, and how a payout's recipient is recognised. Pure.
 */

export const deskOfficeKinds = ['office', 'atm'] as const;
export type DeskOfficeKind = (typeof deskOfficeKinds)[number];

/** payment: an obligation paid at the desk; billing_payment: an IDN of a merchant's billing system. */
export const deskOperationKinds = ['payment', 'payout', 'billing_payment'] as const;
export type DeskOperationKind = (typeof deskOperationKinds)[number];

/** pending until the workflow has answered; then completed (receipt valid) or refused (nothing moved). */
export const deskOperationStates = ['pending', 'completed', 'refused'] as const;
export type DeskOperationState = (typeof deskOperationStates)[number];

/** An office or ATM id: 6 digits, the AID of the billing protocol's TIDs. */
export const OFFICE_ID_PATTERN = /^\d{6}$/;
export const DESK_LOGIN_PATTERN = /^[a-z0-9][a-z0-9._-]{2,63}$/;
/** A client's Idempotency-Key (or the page's request id): printable, no spaces. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

/** The receipt number of operation `sequence` at `officeId`: `000123-0000004567`. */
export const receiptOf = (officeId: string, sequence: number) =>
  `${officeId}-${String(sequence).padStart(10, '0')}`;

const RECEIPT = /^(\d{6})-(\d{10})$/;

export function parseReceipt(receipt: string): { officeId: string; sequence: number } | undefined {
  const match = RECEIPT.exec(receipt);
  if (!match) return undefined;
  return { officeId: match[1]!, sequence: Number(match[2]) };
}

/**
 * STAN and BCODE of a desk payment: the STAN is the desk's trace number (the receipt's sequence,
 * last 6 digits), the BCODE the office id, so the merchant can tell where and which. A payout keeps
 * 000000 for both (the obligation workflow sets them).
 */
export const deskStan = (sequence: number) => String(sequence % 1_000_000).padStart(6, '0');
export const deskBcode = (officeId: string) => officeId;

/**
 * A name as the recipient's document and the merchant's packet may write it differently: case,
 * Unicode form, surrounding and repeated spaces, hyphens and apostrophes. Letters are kept (й is not и).
 */
export const normalisedName = (name: string) =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[-‐‑'’.]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Whether the identity presented at the desk is the payout's registered recipient (ID exactly). */
export function recipientMatches(
  registered: { recipientId?: string | undefined; recipientName?: string | undefined },
  presented: { recipientId: string; recipientName: string },
): boolean {
  if (!registered.recipientId || !registered.recipientName) return false;
  return (
    registered.recipientId === presented.recipientId.trim() &&
    normalisedName(registered.recipientName) === normalisedName(presented.recipientName)
  );
}

/** What a request asked, as its idempotency record keeps it (a reused key must ask the same). */
export function deskRequestDigest(kind: DeskOperationKind, fields: Record<string, string>): string {
  const canonical = Object.keys(fields)
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  return createHash('sha256').update(`${kind}\n${canonical}`).digest('hex');
}
