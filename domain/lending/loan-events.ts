import type { LoanStatus } from './loan-lifecycle.ts';
import type { LoanSnapshot } from './loan-process.ts';

/**
 * Lending events (a design extension beyond the spec, decision 0088): what a tenant's endpoints are told
 * when one of its loans changes. Each is read off two recorded versions of the loan, so the loan's
 * workflow sends exactly what changed, once: the event id is derived from the loan and the change (its
 * version for a status change, the repayment's or the bid's own id otherwise), so a retried hand-over or
 * a replayed history is the same event, and the webhook engine makes one delivery of it per endpoint.
 * Pure: used by the workflow.
 */

export const LOAN_EVENT_TYPES = [
  'loan.status_changed',
  'loan.disbursed',
  'loan.repayment_booked',
  'loan.repayment_reversed',
  'loan.bid_placed',
  'loan.document_signed',
] as const;
export type LoanEventType = (typeof LOAN_EVENT_TYPES)[number];

/** What every event carries: whose loan, which version of it, and when it was recorded. */
export type LoanEventBase = {
  tenantId: string;
  loanId: string;
  /** The customer's id in the tenant (Customer/Register), never their personal data. */
  customerId: string;
  /** The loan's version this event was recorded with (grows with every change: order events by it). */
  version: number;
  at: string;
};

export type LoanEventPayload = LoanEventBase &
  (
    | { from: LoanStatus | null; to: LoanStatus }
    | { amount: string; currency: string; date: string }
    | { repaymentId: string; amount: string; currency: string; date: string; mode: string }
    | { repaymentId: string; amount: string; currency: string; reversedAt: string | null }
    | { bidId: string; amount: string; currency: string; placedAt: string }
    | { docTypeId: string; name: string; signedAt: string }
  );

export interface LoanEvent {
  eventType: LoanEventType;
  /** Stable: `lending-loan-<tenant>-<loan>.<change>`. */
  eventId: string;
  /** The loan id (the deliveries' `subjectId`). */
  subjectId: string;
  payload: LoanEventPayload;
}

/**
 * The events between the loan as last sent (`before`; none for a new loan) and the version about to be
 * recorded (`after`), in this order: the status change, the disbursement, repayments booked, repayments
 * reversed, bids placed.
 */
export function loanEventsBetween(
  before: LoanSnapshot | undefined,
  after: LoanSnapshot,
  at: string,
): LoanEvent[] {
  const { tenantId, loanId, customerId, currency, version } = after;
  const base: LoanEventBase = { tenantId, loanId, customerId, version, at };
  const events: LoanEvent[] = [];
  const add = (eventType: LoanEventType, change: string, fields: object) =>
    events.push({
      eventType,
      eventId: `lending-loan-${tenantId}-${loanId}.${change}`,
      subjectId: loanId,
      payload: { ...base, ...fields } as LoanEventPayload,
    });

  if (before?.status !== after.status)
    add('loan.status_changed', `v${version}.status`, { from: before?.status ?? null, to: after.status });
  if (!before?.disbursement && after.disbursement)
    add('loan.disbursed', 'disbursed', { ...after.disbursement, currency });

  const earlier = new Map((before?.servicing?.repayments ?? []).map((entry) => [entry.repaymentId, entry]));
  const repayments = after.servicing?.repayments ?? [];
  for (const { repaymentId, amount, date, mode, reversed } of repayments)
    if (!earlier.has(repaymentId) && !reversed)
      add('loan.repayment_booked', `repayment-${repaymentId}.booked`, {
        repaymentId,
        amount,
        currency,
        date,
        mode,
      });
  for (const { repaymentId, amount, reversed, reversedAt } of repayments)
    if (reversed && earlier.get(repaymentId)?.reversed === false)
      add('loan.repayment_reversed', `repayment-${repaymentId}.reversed`, {
        repaymentId,
        amount,
        currency,
        reversedAt: reversedAt ?? null,
      });

  const bidsBefore = new Set((before?.funding?.bids ?? []).map((bid) => bid.bidId));
  for (const { bidId, amount, placedAt } of after.funding?.bids ?? [])
    if (!bidsBefore.has(bidId))
      add('loan.bid_placed', `bid-${bidId}.placed`, { bidId, amount, currency, placedAt });
  return events;
}

/** A signature of one of the loan's documents not yet announced (lending_loan_document_decisions). */
export interface LoanSignature {
  docTypeId: string;
  /** The document's name (a document type's, e.g. `Loan agreement`: never personal). */
  name: string;
  /** `sha256:<hex>` of the text signed: a signature on new terms (after Reprocessing) is a new one. */
  contentHash: string;
  signedAt: string;
}

/**
 * `loan.document_signed` for each signature (SignDocument records them outside the loan's workflow, which
 * announces them; decision 0088), with `loan`'s ids and `version` (the loan's version when announced):
 * one event per signature, its id from the document and the text signed.
 */
export const documentSignedEvents = (
  loan: Pick<LoanSnapshot, 'tenantId' | 'loanId' | 'customerId' | 'version'>,
  signatures: LoanSignature[],
): LoanEvent[] =>
  signatures.map(({ docTypeId, name, contentHash, signedAt }) => {
    const { tenantId, loanId, customerId, version } = loan;
    const text = contentHash.replace(/^sha256:/, '').slice(0, 16);
    return {
      eventType: 'loan.document_signed',
      eventId: `lending-loan-${tenantId}-${loanId}.document-${docTypeId}-${text}.signed`,
      subjectId: loanId,
      payload: { tenantId, loanId, customerId, version, at: signedAt, docTypeId, name, signedAt },
    };
  });
