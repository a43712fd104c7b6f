import { Decimal } from 'decimal.js';
import type { RepaymentMode, ServicingPosition } from './servicing.ts';

/**
 * Repayments the customer submits, and auto-charges, through the collection gateway (decision 0045).
 * Pure rules, safe in workflow code: the ids and INVOICEs lending gives the gateway, a submission as
 * the loan keeps it, and which instalments an auto-charge is for.
 */

/**
 * SubmitRepayment's `channel` (before: its `mode`): how the money comes in. The allocation is the
 * submission's repayment mode (`Regular payment` or `Early repayment`).
 */
export const submissionModes = ['card', 'bankTransfer'] as const;
export type SubmissionMode = (typeof submissionModes)[number];

/** How a submission came to be: the customer's SubmitRepayment, or the loan's auto-charge on a due date. */
export type SubmissionChannel = SubmissionMode | 'autocharge';

/**
 * `charging` (a card charge asked of the gateway), `paid` (booked), `declined` (the card was declined, or
 * no card could be charged), `registering` → `pending` (a deposit slip waiting for the transfer),
 * `expired` (the slip expired unpaid), `failed` (the gateway refused or never answered), `reversed` (paid,
 * then the bank took the transfer back and its repayment was reversed, decision 0069; the slip is payable
 * again at the gateway until it expires: a new PAID books it again).
 */
export const submissionStatuses = [
  'charging',
  'paid',
  'declined',
  'registering',
  'pending',
  'expired',
  'failed',
  'reversed',
] as const;
export type SubmissionStatus = (typeof submissionStatuses)[number];

/** A payment of a submission that the bank took back (the gateway's `REVERSED`, decision 0069). */
export interface SubmissionReversal {
  /** The PAY_TIME of the payment taken back (a later PAID with it again is that payment, not a new one). */
  payTime: string | null;
  /** The repayment reversed with it; none when nothing of it had been booked. */
  repaymentId: string | null;
  /** When the loan took it back (ISO). */
  at: string;
}

/** What the API asks the loan to do (its id is the API's, unique per tenant). */
export interface SubmissionRequest {
  submissionId: string;
  mode: SubmissionMode;
  /** How the money is allocated once booked; absent (older requests): `Regular payment`. */
  repaymentMode?: RepaymentMode | undefined;
  /** The gateway's AMOUNT notation (`150.00`). */
  amount: string;
  /** card: the customer's card to charge (the API resolved the default); bankTransfer: the account paid from, if named. */
  paymentMethodId: string | null;
}

/** A submission as the loan workflow keeps it (and its read model, lending_repayment_submissions). */
export interface RepaymentSubmission {
  submissionId: string;
  /** `LR-<submissionId>`: the gateway's INVOICE, and the booked repayment's reference. */
  invoice: string;
  channel: SubmissionChannel;
  /** How the money is allocated once booked; absent (auto-charges, older submissions): `Regular payment`. */
  repaymentMode?: RepaymentMode | undefined;
  amount: string;
  currency: string;
  status: SubmissionStatus;
  /** The card charged or the bank account paid from; null for an auto-charge until a card is found. */
  paymentMethodId: string | null;
  /** The gateway's IDN: the reference a bank transfer quotes; the card charge's obligation. */
  idn: string | null;
  iban: string | null;
  beneficiary: string | null;
  /** When a deposit slip expires at the gateway (ISO). */
  expiresAt: string | null;
  /** Why it was declined, expired or failed; or what was not booked of it. */
  reason: string | null;
  /** The repayment booked for it. */
  repaymentId: string | null;
  /** Auto-charge: the instalments it was for. */
  instalments?: number[] | undefined;
  /** The gateway's PAY_TIME of the payment booked now (decision 0069); absent before it was kept. */
  payTime?: string | null | undefined;
  /** Payments of it the bank took back, oldest first (decision 0069). */
  reversals?: SubmissionReversal[] | undefined;
  /**
   * A REVERSED came while the submission was still open (its PAID not yet here, the gateway's deliveries
   * are not ordered): the next PAID is the payment taken back, on record as such and not booked.
   */
  reversedAhead?: boolean | undefined;
  /**
   * The PAY_TIMEs of payments the bank took back (a REVERSED carrying PAY_TIME, decision 0069 amended
   * 2026-11-28) that the loan had not booked: a PAID of one of them books nothing; any other is booked.
   */
  reversedNotBooked?: string[] | undefined;
  createdAt: string;
  updatedAt: string;
}

const HEX16 = /^[0-9a-f]{16}$/;

/** The gateway INVOICE of a submission. */
export const submissionInvoice = (submissionId: string) => `LR-${submissionId}`;

/** The submission of an `LR-` INVOICE, or undefined for any other. */
export function parseSubmissionInvoice(invoice: string): string | undefined {
  const match = /^LR-(sub_[0-9a-f]{16})$/.exec(invoice);
  return match?.[1];
}

/** The repayment booked for a submission: the same 16 hex digits (unique per tenant as the submission is). */
export const repaymentIdOf = (submissionId: string) => `rpm_${submissionId.slice(4)}`;

/**
 * The repayment a submission's money books in its `round` (1: its first payment; each payment the bank
 * took back starts the next, decision 0069): id and reference, round 1's as before (`rpm_<hex>`, the
 * INVOICE), later ones suffixed as the gateway's settlements are (`rpm_<hex>-2`, `LR-…#2`).
 */
export function roundRepaymentOf(
  submission: Pick<RepaymentSubmission, 'submissionId' | 'invoice' | 'reversals'>,
): { round: number; repaymentId: string; reference: string } {
  const round = (submission.reversals?.length ?? 0) + 1;
  const repaymentId = repaymentIdOf(submission.submissionId);
  return round === 1
    ? { round, repaymentId, reference: submission.invoice }
    : { round, repaymentId: `${repaymentId}-${round}`, reference: `${submission.invoice}#${round}` };
}

/** A submission id from 16 hex digits (the API's random ones; the workflow's own from its uuid4). */
export function submissionIdOf(hex: string): string {
  if (!HEX16.test(hex)) throw new Error(`a submission id needs 16 hex digits, not ${hex}`);
  return `sub_${hex}`;
}

/** The gateway INVOICE of a card's verification on the card page. */
export const cardInvoice = (cardId: string) => `LC-${cardId}`;

/** The card of an `LC-` INVOICE, or undefined for any other. */
export function parseCardInvoice(invoice: string): string | undefined {
  const match = /^LC-(card_[0-9a-f]{16})$/.exec(invoice);
  return match?.[1];
}

/** The repayment mode a submission books its money as. */
export const submissionRepaymentMode = (
  submission: Pick<RepaymentSubmission, 'repaymentMode'>,
): RepaymentMode => submission.repaymentMode ?? 'Regular payment';

/** A submission still waiting for the gateway's answer (a charge or a slip's registration in flight). */
export const submissionInFlight = (submission: RepaymentSubmission) =>
  submission.status === 'charging' || submission.status === 'registering';

/** A submission whose money may still arrive (and then be booked). */
export const submissionOpen = (submission: RepaymentSubmission) =>
  submissionInFlight(submission) || submission.status === 'pending';

// --- auto-charge ---------------------------------------------------------------------------------

const unpaid = (position: ServicingPosition) =>
  position.instalments.filter((row) => new Decimal(row.outstanding).gt(0));

/** When auto-charge charges an instalment: its due date at 00:00 UTC, plus LENDING_AUTOCHARGE_TIME (`atMs`). */
export const autochargeMomentOf = (dueDate: string, atMs: number) =>
  Date.parse(`${dueDate}T00:00:00Z`) + atMs;

/** The instalments an auto-charge at `now` is for: unpaid, their moment reached, not handled before. */
export function instalmentsToAutocharge(
  position: ServicingPosition,
  handled: readonly number[],
  now: number,
  atMs: number,
): number[] {
  return unpaid(position)
    .filter((row) => autochargeMomentOf(row.dueDate, atMs) <= now && !handled.includes(row.number))
    .map((row) => row.number);
}

/** The instalments whose auto-charge moment has passed at `now`: what enabling auto-charge leaves alone. */
export const instalmentsReached = (position: ServicingPosition, now: number, atMs: number): number[] =>
  position.instalments.filter((row) => autochargeMomentOf(row.dueDate, atMs) <= now).map((row) => row.number);

/**
 * The next auto-charge moment (epoch ms) of the oldest unpaid instalment not handled yet (in the past
 * when the loan could not act on it in time); none when there is none.
 */
export function nextAutochargeMoment(
  position: ServicingPosition,
  handled: readonly number[],
  atMs: number,
): number | null {
  const next = unpaid(position).find((row) => !handled.includes(row.number));
  return next ? autochargeMomentOf(next.dueDate, atMs) : null;
}

/**
 * What of `amount` received the loan can book: at most what it owes (`payoff`); the rest is beyond the
 * loan (a bank transfer paid after another payment settled it) and is left for a refund. Each is null
 * when there is none.
 */
export function bookableAmount(
  amount: string,
  /** What the loan owes: its pay-off, or its outstanding principal for an Early repayment. */
  payoff: string,
): { booked: string | null; excess: string | null } {
  const digits = payoff.split('.')[1]?.length ?? 2;
  const booked = Decimal.max(0, Decimal.min(amount, payoff));
  const excess = new Decimal(amount).minus(booked);
  return {
    booked: booked.gt(0) ? booked.toFixed(digits) : null,
    excess: excess.gt(0) ? excess.toFixed(digits) : null,
  };
}
