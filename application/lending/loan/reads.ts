import { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import { lendingLoans } from '../../../db/schema/lending-loans.ts';
import { lendingLoanServicing } from '../../../db/schema/lending-servicing.ts';
import { minorUnitDigits } from '../../../domain/lending/credit-products.ts';
import { isClosed, LoanRefusal, type LoanStatus, stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import type { LoanCoApplicant, LoanOffer } from '../../../domain/lending/loan-process.ts';
import { calculateSchedule, type Schedule } from '../../../domain/lending/schedule.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { findCreditProduct, todayUtc } from '../credit-products.ts';
import type { LoanRequest } from './record.ts';
import {
  activeLoansOf,
  audienceOf,
  type LoanCaller,
  loanOf,
  loanRecordOf,
  loanView,
  mayRead,
} from './record.ts';
import { type LoanRow, type LoanView, type ServicingView, servicingViewOf, viewOfLoan } from './view.ts';

/**
 * Reads of the loan: the loan as its caller sees it, the customer's loans, offers, amounts to repay, a
 * summary, the servicing, and whether a rollover is allowed.
 */

type Deps = Pick<UseCaseDeps, 'db'>;
type CustomerCaller = LoanCaller & { customerId: string };

export type OfferWithSchedule = LoanOffer & { schedule: Schedule | null };

/** An offer with its schedule under the loan's product (and promo code), starting today. */
async function offerWithSchedule(deps: Deps, row: LoanRow, offer: LoanOffer): Promise<OfferWithSchedule> {
  const product = await findCreditProduct(deps.db, row.tenantId, row.promoCode ?? row.productName);
  let schedule: Schedule | null = null;
  if (product) {
    try {
      schedule = calculateSchedule(product, {
        amount: offer.amount,
        term: offer.term,
        startDate: todayUtc(),
        promoCode: row.promoCode ?? undefined,
      });
    } catch {
      // The product changed its bounds since the offer: the offer stands, without a schedule.
    }
  }
  return { ...offer, schedule };
}

/** The reading operations' own refusal: 409 naming the status (or the missing feature). */
async function readableLoan(
  deps: Deps,
  caller: CustomerCaller,
  loanId: string,
  operation: 'readOffer' | 'readOffers',
): Promise<LoanRow> {
  const row = await loanOf(deps, caller, loanId);
  const step = stepOf(operation, row.status, { multipleOffers: row.multipleOffers });
  if (!step.allowed) throw Refusal.conflict(step.type, step.message);
  return row;
}

/** Customer/Loans/{loanId}/LoanOffer: the first offer with its schedule; only in Offer confirmation. */
export async function loanOffer(
  deps: Deps,
  { caller, loanId }: { caller: CustomerCaller; loanId: string },
): Promise<OfferWithSchedule> {
  const row = await readableLoan(deps, caller, loanId, 'readOffer');
  const [offer] = row.offers;
  if (!offer) throw Refusal.notFound('Offer');
  return offerWithSchedule(deps, row, offer);
}

/** Customer/Loans/{loanId}/LoanOffers: every offer (with the multiple-offers feature). */
export async function loanOffers(
  deps: Deps,
  { caller, loanId }: { caller: CustomerCaller; loanId: string },
): Promise<{ offers: OfferWithSchedule[] }> {
  const row = await readableLoan(deps, caller, loanId, 'readOffers');
  return { offers: await Promise.all(row.offers.map((offer) => offerWithSchedule(deps, row, offer))) };
}

export interface RepaymentAmounts {
  loanId: string;
  status: LoanStatus;
  currency: string;
  overdue: string;
  dueNow: string;
  nextDueDate: string | null;
  nextInstalment: string | null;
  payOff: string;
  daysPastDue: number;
}

/**
 * PaymentOptions/RepaymentAmounts: what the customer may pay on a paid-out loan now (decision 0043);
 * 409 `invalid_loan_status` before it is paid out.
 */
export async function repaymentAmounts(
  deps: Deps,
  { caller, loanId }: { caller: CustomerCaller; loanId: string },
): Promise<RepaymentAmounts> {
  const row = await loanOf(deps, caller, loanId);
  const servicing = await servicingView(deps, { tenantId: row.tenantId, loanId: row.loanId });
  if (!servicing)
    throw Refusal.conflict(
      LoanRefusal.invalidStatus,
      `repayment amounts exist once the loan is paid out: the loan is in status ${row.status}`,
    );
  return {
    loanId: row.loanId,
    status: row.status,
    currency: row.currency,
    overdue: servicing.overdueAmount,
    dueNow: servicing.dueNow,
    nextDueDate: servicing.nextDueDate,
    nextInstalment: servicing.nextDueAmount,
    payOff: servicing.payoffAmount,
    daysPastDue: servicing.daysPastDue,
  };
}

const SERVICED = new Set<LoanStatus>(['Active', 'Past Due']);

export interface AccountSummary {
  customerId: string;
  openLoans: number;
  closedLoans: number;
  loansByStatus: Partial<Record<LoanStatus, number>>;
  disbursedPrincipal: { currency: string; amount: string }[];
  pastDue: boolean;
}

/**
 * Customer/AccountSummary: the customer's loans at a glance: how many are open, closed, in each status,
 * and the principal paid out on loans being repaid, per currency.
 */
export async function accountSummary(
  deps: Deps,
  { caller }: { caller: CustomerCaller },
): Promise<AccountSummary> {
  const { customerId } = caller;
  const rows = await deps.db
    .select({ status: lendingLoans.status, amount: lendingLoans.amount, currency: lendingLoans.currency })
    .from(lendingLoans)
    .where(and(eq(lendingLoans.tenantId, caller.tenantId), eq(lendingLoans.customerId, customerId)));
  const loansByStatus: Partial<Record<LoanStatus, number>> = {};
  const disbursed = new Map<string, Decimal>();
  for (const row of rows) {
    loansByStatus[row.status] = (loansByStatus[row.status] ?? 0) + 1;
    if (SERVICED.has(row.status)) {
      disbursed.set(row.currency, (disbursed.get(row.currency) ?? new Decimal(0)).plus(row.amount));
    }
  }
  const closed = rows.filter((row) => isClosed(row.status)).length;
  return {
    customerId,
    openLoans: rows.length - closed,
    closedLoans: closed,
    loansByStatus,
    disbursedPrincipal: [...disbursed].map(([currency, amount]) => ({
      currency,
      amount: amount.toFixed(minorUnitDigits(currency)),
    })),
    pastDue: rows.some((row) => row.status === 'Past Due'),
  };
}

/** The loan as the caller sees it (GET Customer/Loans/{loanId}, Management/Loans/{loanId}). */
export async function readLoan(deps: Deps, { caller, loanId }: LoanRequest): Promise<LoanView> {
  const record = await loanRecordOf(deps.db, caller.tenantId, loanId);
  if (!record || !mayRead(caller, record.row)) throw Refusal.notFound('Loan');
  return viewOfLoan(record, audienceOf(caller));
}

/** Customer/Loans: the customer's loans that are not closed, newest first. */
export async function customerActiveLoans(
  deps: Deps,
  { caller }: { caller: CustomerCaller },
): Promise<LoanView[]> {
  const rows = await activeLoansOf(deps.db, caller.tenantId, caller.customerId);
  return Promise.all(rows.map((row) => loanView(deps.db, row, 'customer')));
}

/** The loan's servicing, or null before it is paid out. */
export async function servicingView(
  { db }: Deps,
  { tenantId, loanId, today = todayUtc() }: { tenantId: string; loanId: string; today?: string },
): Promise<ServicingView | null> {
  const [row] = await db
    .select({ servicing: lendingLoanServicing.servicing })
    .from(lendingLoanServicing)
    .where(and(eq(lendingLoanServicing.tenantId, tenantId), eq(lendingLoanServicing.loanId, loanId)))
    .limit(1);
  return row ? servicingViewOf(row.servicing, today) : null;
}

/** Whether the customer may request a rollover now, and why not. */
export async function rolloverAllowed(
  deps: Deps,
  { caller, loanId }: LoanRequest,
): Promise<{ loanId: string; allowed: boolean; reason: string | null }> {
  const row = await loanOf(deps, caller, loanId);
  const step = stepOf('requestRollover', row.status, { rolloverRequested: row.rolloverRequested });
  return { loanId: row.loanId, allowed: step.allowed, reason: step.allowed ? null : step.message };
}

/** The loan's co-applicant (null when none is given). */
export async function coApplicantOf(
  deps: Deps,
  { caller, loanId }: LoanRequest,
): Promise<{ loanId: string; coApplicant: LoanCoApplicant | null }> {
  const row = await loanOf(deps, caller, loanId);
  return { loanId: row.loanId, coApplicant: row.coApplicant ?? null };
}
