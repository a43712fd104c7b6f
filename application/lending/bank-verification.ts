import {
  ApplicationFailure,
  type UpdateDefinition,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { and, desc, eq } from 'drizzle-orm';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import { lendingLoans } from '../../db/schema/lending-loans.ts';
import {
  type BankVerificationStatus,
  lendingBankVerifications,
} from '../../db/schema/lending-payment-options.ts';
import { consentStateDigest } from '../../domain/lending/bank-verification.ts';
import { openLoanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import {
  BankVerificationFailure,
  bankVerificationWorkflowId,
  type GatewayRefusalDetails,
  type VerificationBank,
  verificationBanksUpdate,
  verificationConsentUpdate,
  verificationOutcomeUpdate,
} from '../../domain/lending/sibling-processes.ts';
import { OwnerId, PlatformService, TenantId } from '../../domain/search-attributes.ts';
import type { lendingBankVerification } from '../../workflows/lending/bank-verification.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { activeLoansOf, loanOf } from './loan/record.ts';
import type { LoanRow } from './loan/view.ts';

/**
 * Bank verification of a loan (decisions 0042, 0047): a one-shot `account-list` consent through the
 * open-banking gateway's public API, lending acting as an agent there and the customer as its user.
 * Settings starts the consent and hands the frame the bank's SCA page; SaveData records what the frame
 * returned; IsDataProcessed asks how the consent ended and decides by domain/lending/bank-verification.ts;
 * CancelBankVerification records a skip with its reason. Every call to the gateway is a step of the
 * customer's bank-verification workflow (workflows/lending/bank-verification.ts), reached with an Update
 * that answers once the step is recorded; these use cases then answer from the read model.
 */

type Row = typeof lendingBankVerifications.$inferSelect;

export interface BankVerificationView {
  /** Null only for a call without `loanId` by a customer who has no loan. */
  loanId: string | null;
  verificationId: string | null;
  status: 'not_started' | BankVerificationStatus;
  processed: boolean;
  verified: boolean;
  bankHash: string | null;
  frameUrl: string | null;
  frameExpiresAt: string | null;
  consentStatus: string | null;
  matchedIban: string | null;
  reason: string | null;
  frameDataSavedAt: string | null;
  decidedAt: string | null;
}

export interface BankVerificationSettings extends BankVerificationView {
  banks: VerificationBank[];
}

/** Where the request came from, as the gateway steps need it. */
export interface VerificationCaller {
  /** The API's public base (the gateway is its `/openbanking` unless LENDING_OPENBANKING_URL). */
  apiBaseUrl: string;
  /** The customer's browser, passed on to the bank. */
  userAgent?: string | undefined;
}

export function verificationView(loanId: string | null, row: Row | undefined): BankVerificationView {
  const status = row?.status ?? 'not_started';
  const open = row?.status === 'pending' && (row.scaDeadline?.getTime() ?? 0) > Date.now();
  return {
    loanId,
    verificationId: row?.id ?? null,
    status,
    processed: status !== 'not_started' && status !== 'pending',
    verified: status === 'verified',
    bankHash: row?.bankHash ?? null,
    frameUrl: open ? (row?.frameUrl ?? null) : null,
    frameExpiresAt: open ? (row?.scaDeadline?.toISOString() ?? null) : null,
    consentStatus: row?.consentStatus ?? null,
    matchedIban: row?.matchedIban ?? null,
    reason: row?.reason ?? null,
    frameDataSavedAt: row?.frameDataSavedAt?.toISOString() ?? null,
    decidedAt: row?.decidedAt?.toISOString() ?? null,
  };
}

// --- the customer's workflow --------------------------------------------------------------------------

/** The gateway could not serve a verification now: 503, never a 500. */
const unavailable = (detail: string) =>
  new Refusal(
    503,
    'bank_verification_unavailable',
    `The open-banking gateway cannot be used for bank verification now (${detail})`,
  );

/**
 * What a failed step is answered with: a refusal the customer can act on (`notFound` for a 404, a 409
 * as it is); anything else is 503 `bank_verification_unavailable`.
 */
function stepRefusal(error: unknown, notFound?: () => Refusal): Refusal {
  const failure =
    error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure
      ? error.cause
      : undefined;
  if (failure?.type === BankVerificationFailure.refused) {
    const details = failure.details?.[0] as GatewayRefusalDetails | undefined;
    if (details?.status === 404 && notFound) return notFound();
    if (details?.status === 409) return Refusal.conflict(details.code, failure.message);
  }
  return unavailable(failure?.message ?? (error instanceof Error ? error.message : String(error)));
}

interface Customer {
  tenantId: string;
  customerId: string;
}

/** Runs one step in the customer's workflow (started on first use) and answers once it is recorded. */
async function verificationStep<Ret, Arg>(
  deps: UseCaseDeps,
  customer: Customer,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
  notFound?: () => Refusal,
): Promise<Ret> {
  try {
    return await deps.temporal.workflow.executeUpdateWithStart(update, {
      args: [arg],
      startWorkflowOperation: new WithStartWorkflowOperation<typeof lendingBankVerification>(
        'lendingBankVerification',
        {
          workflowId: bankVerificationWorkflowId(customer.tenantId, customer.customerId),
          taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'USE_EXISTING',
          args: [customer],
          typedSearchAttributes: [
            { key: PlatformService, value: 'lending' },
            { key: TenantId, value: customer.tenantId },
            { key: OwnerId, value: customer.customerId },
          ],
          staticSummary: `Bank verification steps of customer ${customer.customerId}`,
        },
      ),
    });
  } catch (error) {
    throw stepRefusal(error, notFound);
  }
}

const gatewayUrlOf = (deps: UseCaseDeps, caller: VerificationCaller) =>
  (deps.config.LENDING_OPENBANKING_URL ?? `${caller.apiBaseUrl}/openbanking`).replace(/\/+$/, '');

// --- the loan's verification ----------------------------------------------------------------------------

async function currentVerification(db: Database, tenantId: string, loanId: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(lendingBankVerifications)
    .where(and(eq(lendingBankVerifications.tenantId, tenantId), eq(lendingBankVerifications.loanId, loanId)))
    .orderBy(desc(lendingBankVerifications.createdAt))
    .limit(1);
  return row;
}

/** The customer's loan (404 for another's) and its current verification. */
async function loanAndVerification(db: Database, customer: Customer, loanId: string) {
  const loan = await loanOf({ db }, customer, loanId);
  return { loan, current: await currentVerification(db, customer.tenantId, loan.loanId) };
}

/**
 * The loan a read without `loanId` is about (the spec lists none for Settings and IsDataProcessed): the
 * customer's newest loan that is not closed (the one a verification serves), else their newest loan;
 * undefined for a customer without any loan.
 */
export async function defaultVerificationLoan(
  db: Database,
  customer: Customer,
): Promise<LoanRow | undefined> {
  const [open] = await activeLoansOf(db, customer.tenantId, customer.customerId);
  if (open) return open;
  const [newest] = await db
    .select()
    .from(lendingLoans)
    .where(
      and(eq(lendingLoans.tenantId, customer.tenantId), eq(lendingLoans.customerId, customer.customerId)),
    )
    .orderBy(desc(lendingLoans.createdAt))
    .limit(1);
  return newest;
}

/** The named loan (404 for another's), else the default one; with its current verification. */
async function loanOrDefault(db: Database, customer: Customer, loanId: string | undefined) {
  if (loanId !== undefined) return loanAndVerification(db, customer, loanId);
  const loan = await defaultVerificationLoan(db, customer);
  return { loan, current: loan && (await currentVerification(db, customer.tenantId, loan.loanId)) };
}

/**
 * Settings: without `bankHash`, the banks to choose from (and the open frame of a pending verification);
 * with it, a pending verification at that bank whose frame is still open, else a new consent. Without
 * `loanId`, of the default loan (defaultVerificationLoan); a customer without a loan gets the banks
 * (`loanId` null), and 409 `no_loan` for a `bankHash` (a verification is of a loan).
 */
export async function verificationSettings(
  deps: UseCaseDeps,
  {
    customer,
    caller,
    ...request
  }: {
    customer: Customer;
    loanId?: string | undefined;
    bankHash?: string | undefined;
    caller: VerificationCaller;
  },
): Promise<BankVerificationSettings> {
  const { loan, current } = await loanOrDefault(deps.db, customer, request.loanId);
  if (!loan) {
    if (request.bankHash !== undefined)
      throw Refusal.conflict('no_loan', 'The customer has no loan to verify a bank account for');
    const banks = await verificationStep(deps, customer, verificationBanksUpdate, {
      gatewayUrl: gatewayUrlOf(deps, caller),
    });
    return { ...verificationView(null, undefined), banks };
  }
  const { bankHash } = request;
  const gatewayUrl = gatewayUrlOf(deps, caller);
  const decided = current !== undefined && current.status !== 'pending' && current.status !== 'not_verified';
  const frameOpen =
    current?.status === 'pending' &&
    (current.scaDeadline?.getTime() ?? 0) > Date.now() &&
    (bankHash === undefined || current.bankHash === bankHash);
  if (decided || frameOpen || bankHash === undefined) {
    const banks =
      decided || frameOpen
        ? []
        : await verificationStep(deps, customer, verificationBanksUpdate, { gatewayUrl });
    return { ...verificationView(loan.loanId, current), banks };
  }
  if (!openLoanStatuses.includes(loan.status)) {
    throw Refusal.conflict(
      'invalid_loan_status',
      `Bank verification is not available for a loan in status ${loan.status}`,
    );
  }
  await verificationStep(
    deps,
    customer,
    verificationConsentUpdate,
    { gatewayUrl, loanId: loan.loanId, bankHash, userAgent: caller.userAgent },
    () => Refusal.field('bankHash', 'not an active bank of the open-banking gateway'),
  );
  return {
    ...verificationView(loan.loanId, await currentVerification(deps.db, customer.tenantId, loan.loanId)),
    banks: [],
  };
}

/** SaveData: records the frame's return (checked against the pending consent), then processes it. */
export async function saveFrameData(
  deps: UseCaseDeps,
  {
    customer,
    caller,
    ...data
  }: {
    customer: Customer;
    loanId: string;
    state?: string | undefined;
    consentId?: string | undefined;
    caller: VerificationCaller;
  },
): Promise<BankVerificationView> {
  const { loan, current } = await loanAndVerification(deps.db, customer, data.loanId);
  if (current?.status !== 'pending') {
    throw Refusal.conflict(
      'no_pending_bank_verification',
      `The loan has no bank verification waiting for the frame (status ${current?.status ?? 'not_started'})`,
    );
  }
  if (data.state !== undefined && consentStateDigest(data.state) !== current.stateDigest)
    throw Refusal.field('state', 'does not belong to the loan’s pending bank verification');
  if (data.consentId !== undefined && data.consentId !== current.consentId)
    throw Refusal.field('consentId', 'does not belong to the loan’s pending bank verification');
  await deps.db
    .update(lendingBankVerifications)
    .set({ frameDataSavedAt: new Date(), updatedAt: new Date() })
    .where(eq(lendingBankVerifications.id, current.id));
  return processVerification(deps, { customer, loanId: loan.loanId, caller });
}

/**
 * IsDataProcessed: a pending verification is decided once its consent has ended at the gateway. Without
 * `loanId`, of the default loan (defaultVerificationLoan); a customer without a loan: `not_started`,
 * `loanId` null.
 */
export async function processVerification(
  deps: UseCaseDeps,
  {
    customer,
    loanId,
    caller,
  }: { customer: Customer; loanId?: string | undefined; caller: VerificationCaller },
): Promise<BankVerificationView> {
  const { loan, current } = await loanOrDefault(deps.db, customer, loanId);
  if (!loan) return verificationView(null, undefined);
  if (current?.status !== 'pending' || !current.consentId) return verificationView(loan.loanId, current);
  await verificationStep(deps, customer, verificationOutcomeUpdate, {
    gatewayUrl: gatewayUrlOf(deps, caller),
    verificationId: current.id,
  });
  return verificationView(loan.loanId, await currentVerification(deps.db, customer.tenantId, loan.loanId));
}

/** CancelBankVerification: the loan goes on without one; the reason is recorded. A verified loan: 409. */
export async function skipVerification(
  deps: UseCaseDeps,
  { customer, loanId, reason }: { customer: Customer; loanId: string; reason: string },
): Promise<BankVerificationView> {
  const { loan, current } = await loanAndVerification(deps.db, customer, loanId);
  if (current?.status === 'verified') {
    throw Refusal.conflict('bank_verification_completed', 'The loan’s bank account is verified already');
  }
  const now = new Date();
  const skipped: { status: BankVerificationStatus; reason: string; decidedAt: Date; updatedAt: Date } = {
    status: 'skipped',
    reason,
    decidedAt: now,
    updatedAt: now,
  };
  const [row] =
    current && current.status !== 'not_verified'
      ? await deps.db
          .update(lendingBankVerifications)
          .set(skipped)
          .where(eq(lendingBankVerifications.id, current.id))
          .returning()
      : await deps.db
          .insert(lendingBankVerifications)
          .values({
            id: newRecordId('bkv'),
            tenantId: customer.tenantId,
            customerId: customer.customerId,
            loanId: loan.loanId,
            ...skipped,
          })
          .returning();
  return verificationView(loan.loanId, row);
}
