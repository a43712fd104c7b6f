/**
 * Obligations, holds and payouts: their kinds, states and the rules between them. Pure (no I/O), safe
 * in workflow code.
 *
 *   office_bill, deposit_slip, bank_transfer:  PENDING → PAID (office payment / execution) | EXPIRED
 *   payout_office (cash at an office):         PENDING → PAID (collected; STAN = BCODE = 000000) | EXPIRED
 *   payout_provider (to a provider account):   PENDING → PAID at once (the gateway credits the account)
 *   preauth:                                   HELD → PAID (finalize ≤ held) | REVERSED | EXPIRED
 *   online_payment (card page):                PENDING → PAID | DENIED | EXPIRED; with SAVECARD=1 and
 *                                              AMOUNT=0 (a card verification): PENDING → SAVED | DENIED | EXPIRED
 *   card_charge (a saved card, charge.cgi):    PENDING → PAID | DENIED | EXPIRED (decision 0045)
 * PAID, SAVED, DENIED, REVERSED and EXPIRED are final.
 */
export const obligationKinds = [
  'online_payment',
  'office_bill',
  'preauth',
  'bank_transfer',
  'deposit_slip',
  'payout_office',
  'payout_provider',
  'card_charge',
] as const;
export type ObligationKind = (typeof obligationKinds)[number];

export const obligationStatuses = [
  'PENDING',
  'HELD',
  'PAID',
  'DENIED',
  'REVERSED',
  'EXPIRED',
  /** A card verification (AMOUNT=0, SAVECARD=1): the card is saved, nothing was paid. */
  'SAVED',
] as const;
export type ObligationStatus = (typeof obligationStatuses)[number];

export const isOpen = (status: ObligationStatus) => status === 'PENDING' || status === 'HELD';

export const isPayout = (kind: ObligationKind) => kind === 'payout_office' || kind === 'payout_provider';

/** Kinds settled by a payment at an office (the demo pay_bill.cgi plays the office). */
export const officePayableKinds: readonly ObligationKind[] = ['office_bill', 'deposit_slip', 'bank_transfer'];

/** The notification STATUS of a final state: the merchant protocol knows PAID, DENIED and EXPIRED (and SAVED, ours). */
export function notificationStatusOf(
  status: ObligationStatus,
): 'PAID' | 'DENIED' | 'EXPIRED' | 'SAVED' | undefined {
  if (status === 'PAID' || status === 'EXPIRED' || status === 'DENIED' || status === 'SAVED') return status;
  if (status === 'REVERSED') return 'DENIED';
  return undefined;
}

/** STAN and BCODE of a cash payout collection: always 000000 (ePay's money-send convention). */
export const PAYOUT_STAN = '000000';
export const PAYOUT_BCODE = '000000';

/** Failure types of a refused Update; the API answers them with the protocol error of the same name. */
export const ObligationRefusal = {
  expired: 'EXPIRED',
  alreadyPaid: 'ALREADY_PAID',
  alreadyFinal: 'ALREADY_FINAL',
  wrongKind: 'WRONG_KIND',
  amountExceedsHold: 'AMOUNT_EXCEEDS_HOLD',
  /** FINALIZE of a pre-authorisation whose card has not been authorised yet (PENDING). */
  notHeld: 'NOT_HELD',
  /** The card acquirer is being asked (capture, void) for this obligation: try again in a moment. */
  inProgress: 'IN_PROGRESS',
  /** The card acquirer refused a capture or void (activities/collect/acquirer.ts). */
  acquirerRefused: 'ACQUIRER_REFUSED',
  /** The card acquirer did not answer a capture or void within its retries. */
  acquirerUnavailable: 'ACQUIRER_UNAVAILABLE',
  /** A saved-card charge whose acquirer call could not be made: the same packet may be sent again. */
  unavailable: 'UNAVAILABLE',
  badField: 'BAD_FIELD',
} as const;
export type ObligationRefusalType = (typeof ObligationRefusal)[keyof typeof ObligationRefusal];

/** Why an obligation in `status` (expiring at `expiresAtMs`) cannot move at `nowMs`, if it cannot. */
export function refusalOf(
  status: ObligationStatus,
  expiresAtMs: number,
  nowMs: number,
): { type: ObligationRefusalType; message: string } | undefined {
  if (status === 'PAID')
    return { type: ObligationRefusal.alreadyPaid, message: 'the obligation is paid already' };
  if (status === 'EXPIRED' || (isOpen(status) && nowMs >= expiresAtMs)) {
    return { type: ObligationRefusal.expired, message: 'the obligation has expired' };
  }
  if (!isOpen(status)) {
    return { type: ObligationRefusal.alreadyFinal, message: `the obligation is ${status.toLowerCase()}` };
  }
  return undefined;
}
