import { randomInt } from 'node:crypto';
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../db/schema/lending-loans.ts';
import {
  invalidStatusMessage,
  isClosed,
  type LoanOperation,
  LoanRefusal,
  type LoanStatus,
  openLoanStatuses,
  statusesOf,
} from '../../domain/lending/loan-lifecycle.ts';
import {
  detailsCompletedUpdate,
  type LoanActor,
  type LoanCoApplicant,
  type LoanCollateral,
  type LoanDecision,
  type LoanDisbursement,
  type LoanInput,
  type LoanOffer,
  type LoanSnapshot,
  loanCreatedUpdate,
  loanWorkflowId,
} from '../../domain/lending/loan-process.ts';
import {
  BusinessStatus,
  LoanId,
  OwnerId,
  PlatformService,
  TenantId,
} from '../../domain/search-attributes.ts';
import type { lendingLoan } from '../../workflows/lending/loan.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { type ServicingView, servicingView } from './loan-servicing.ts';
import { type PointOfSale, pointOfSaleOfLoan } from './reference-data.ts';

/**
 * Loans (use cases, decision 0046): the read model (lending_loans, written by the loan workflow's activities), the
 * workflow's Updates with their refusals as the platform's errors, and the loan as the API answers it.
 * Every read is scoped by tenant, and a customer's by customer: another's loan is not found.
 */

export type LoanRow = typeof lendingLoans.$inferSelect;

// --- what the API answers ------------------------------------------------------------------------

/** A loan as the API answers it (api/lending/loan-schemas.ts describes it). */
export interface LoanView {
  loanId: string;
  customerId: string;
  status: LoanStatus;
  productName: string;
  promoCode: string | null;
  currency: string;
  amount: string;
  term: number;
  secured: boolean;
  offers: LoanOffer[];
  acceptedOfferId: string | null;
  collaterals: LoanCollateral[];
  coApplicant: LoanCoApplicant | null;
  /** The vendor and store the loan was sold at (issue 21), as named when it was created. */
  pointOfSale: PointOfSale | null;
  rolloverRequested: boolean;
  autocharge: { enabled: boolean; comment: string | null };
  disbursement: LoanDisbursement | null;
  decision: {
    outcome: LoanDecision['outcome'];
    score: number | null;
    reasons: string[];
    at: string;
  } | null;
  statusHistory: {
    status: LoanStatus;
    at: string;
    by: 'customer' | 'management' | 'system';
    comments: string | null;
    reasonId: string | null;
  }[];
  servicing: ServicingView | null;
  createdAt: string;
  updatedAt: string;
}

/** The loan as the API answers it; `audience` customer leaves the bureau's decision out. */
export async function loanView(
  db: Database,
  row: LoanRow,
  audience: 'customer' | 'management',
): Promise<LoanView> {
  const history = await db
    .select()
    .from(lendingLoanStatusHistory)
    .where(
      and(
        eq(lendingLoanStatusHistory.tenantId, row.tenantId),
        eq(lendingLoanStatusHistory.loanId, row.loanId),
      ),
    )
    .orderBy(asc(lendingLoanStatusHistory.version));
  return {
    loanId: row.loanId,
    customerId: row.customerId,
    status: row.status,
    productName: row.productName,
    promoCode: row.promoCode,
    currency: row.currency,
    amount: row.amount,
    term: row.term,
    secured: row.secured,
    offers: row.offers,
    acceptedOfferId: row.acceptedOfferId,
    collaterals: row.collaterals,
    coApplicant: row.coApplicant ?? null,
    pointOfSale: await pointOfSaleOfLoan(db, row.tenantId, row.loanId),
    rolloverRequested: row.rolloverRequested,
    autocharge: { enabled: row.autocharge, comment: row.autochargeComment },
    disbursement: row.disbursement ?? null,
    decision:
      audience === 'management' && row.decision
        ? {
            outcome: row.decision.outcome,
            score: row.decision.score ?? null,
            reasons: row.decision.reasons,
            at: row.decision.at,
          }
        : null,
    // Servicing starts at the payout and is written with the loan row that records it (recordLoan):
    // a loan without a disbursement has none, so the read is saved on every view before the payout.
    servicing: row.disbursement ? await servicingView(db, row.tenantId, row.loanId) : null,
    statusHistory: history.map((entry) => ({
      status: entry.status,
      at: entry.at.toISOString(),
      by: entry.actorRole,
      comments: entry.comments,
      reasonId: entry.reasonId,
    })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// --- reading ---------------------------------------------------------------------------------------

export async function findLoan(db: Database, tenantId: string, loanId: string): Promise<LoanRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingLoans)
    .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)))
    .limit(1);
  return row;
}

/**
 * Who asks for a loan: management (the tenant's key: any loan of the tenant) or a customer (the user
 * token's: only their own loans, another's is not found, and without the bureau's decision).
 */
export interface LoanCaller {
  tenantId: string;
  /** Set when a customer asks. */
  customerId?: string | undefined;
  /** Recorded in the loan's status history. */
  actor: LoanActor;
}

export const audienceOf = (caller: LoanCaller): 'customer' | 'management' =>
  caller.customerId === undefined ? 'management' : 'customer';

/** A loan the caller may see: 404 for an unknown one, another tenant's or another customer's. */
export async function loanOf(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: Pick<LoanCaller, 'tenantId' | 'customerId'>,
  loanId: string,
): Promise<LoanRow> {
  const row = await findLoan(deps.db, caller.tenantId, loanId);
  if (!row || (caller.customerId !== undefined && row.customerId !== caller.customerId))
    throw Refusal.notFound('Loan');
  return row;
}

/** The loan as the caller sees it (GET Customer/Loans/{loanId}, Management/Loans/{loanId}). */
export async function readLoan(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: LoanCaller,
  loanId: string,
): Promise<LoanView> {
  return loanView(deps.db, await loanOf(deps, caller, loanId), audienceOf(caller));
}

/** The customer's loans that are not closed (the spec's "active loans only"), newest first. */
export async function activeLoansOf(db: Database, tenantId: string, customerId: string): Promise<LoanRow[]> {
  const rows = await db
    .select()
    .from(lendingLoans)
    .where(
      and(
        eq(lendingLoans.tenantId, tenantId),
        eq(lendingLoans.customerId, customerId),
        inArray(lendingLoans.status, [...openLoanStatuses]),
      ),
    );
  return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** 409 `invalid_loan_status` naming the loan's current status. */
export const invalidStatus = (operation: LoanOperation, status: LoanStatus) =>
  Refusal.conflict(LoanRefusal.invalidStatus, invalidStatusMessage(operation, status));

/**
 * Refuses an operation outside its statuses by the read model, before its parameters are looked up (so
 * a wrong status is 409 whatever else is wrong); the workflow's validator decides again.
 */
export function refuseOutsideStatuses(row: LoanRow, operation: LoanOperation): void {
  if (!statusesOf(operation).includes(row.status)) throw invalidStatus(operation, row.status);
}

/** Customer/Loans: the customer's loans that are not closed, newest first. */
export async function customerActiveLoans(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: LoanCaller & { customerId: string },
): Promise<LoanView[]> {
  const rows = await activeLoansOf(deps.db, caller.tenantId, caller.customerId);
  return Promise.all(rows.map((row) => loanView(deps.db, row, 'customer')));
}

// --- moving a loan ------------------------------------------------------------------------------------

const REFUSALS: Record<string, (message: string) => Refusal> = {
  [LoanRefusal.invalidStatus]: (message) => Refusal.conflict(LoanRefusal.invalidStatus, message),
  [LoanRefusal.collateralRequired]: (message) => Refusal.conflict(LoanRefusal.collateralRequired, message),
  [LoanRefusal.rolloverAlreadyRequested]: (message) =>
    Refusal.conflict(LoanRefusal.rolloverAlreadyRequested, message),
  [LoanRefusal.rolloverNotRequested]: (message) =>
    Refusal.conflict(LoanRefusal.rolloverNotRequested, message),
  [LoanRefusal.multipleOffersDisabled]: (message) =>
    Refusal.conflict(LoanRefusal.multipleOffersDisabled, message),
  [LoanRefusal.decisionInProgress]: (message) => Refusal.conflict(LoanRefusal.decisionInProgress, message),
  [LoanRefusal.documentsNotSigned]: (message) => Refusal.conflict(LoanRefusal.documentsNotSigned, message),
  [LoanRefusal.disbursementInProgress]: (message) =>
    Refusal.conflict(LoanRefusal.disbursementInProgress, message),
  [LoanRefusal.disbursementAmountMismatch]: (message) =>
    new Refusal(400, LoanRefusal.disbursementAmountMismatch, message, [{ field: 'amount', message }]),
  [LoanRefusal.offerNotFound]: (message) =>
    new Refusal(400, LoanRefusal.offerNotFound, message, [{ field: 'offerId', message }]),
  [LoanRefusal.collateralNotFound]: (message) => new Refusal(404, 'not_found', message),
  [LoanRefusal.repaymentExceedsBalance]: (message) =>
    new Refusal(400, LoanRefusal.repaymentExceedsBalance, message, [{ field: 'amount', message }]),
  [LoanRefusal.repaymentNotFound]: (message) => new Refusal(404, 'not_found', message),
  // The database refused the change for good: undone in the workflow, which takes the next operation.
  [LoanRefusal.dataRefused]: (message) => new Refusal(422, LoanRefusal.dataRefused, message),
};

/**
 * Runs an Update of the loan's workflow (validated there by the transition table) and answers the loan
 * as recorded. A refusal becomes the platform's error of the same code; a closed loan (its workflow has
 * ended) is refused by its status in the read model.
 */
export async function moveLoan(
  deps: Pick<UseCaseDeps, 'db' | 'temporal'>,
  row: LoanRow,
  operation: LoanOperation,
  run: (loan: WorkflowHandle<typeof lendingLoan>) => Promise<LoanSnapshot>,
  /** The operation's rows allow a closed status (a repayment correction of a Repaid loan, decision 0043). */
  closedAllowed = false,
): Promise<LoanRow> {
  if (isClosed(row.status) && !(closedAllowed && statusesOf(operation).includes(row.status)))
    throw invalidStatus(operation, row.status);
  try {
    await run(deps.temporal.workflow.getHandle<typeof lendingLoan>(loanWorkflowId(row.tenantId, row.loanId)));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const refusal = REFUSALS[error.cause.type ?? ''];
      if (refusal) throw refusal(error.cause.message);
    }
    if (error instanceof WorkflowNotFoundError) {
      const now = (await findLoan(deps.db, row.tenantId, row.loanId)) ?? row;
      throw invalidStatus(operation, now.status);
    }
    throw error;
  }
  return (await findLoan(deps.db, row.tenantId, row.loanId)) ?? row;
}

// --- creating a loan ------------------------------------------------------------------------------

/** A loan id: 9 digits, random (a collision with an existing loan of the tenant is retried). */
const newLoanId = () => String(randomInt(100_000_000, 1_000_000_000));

/**
 * Starts the loan's workflow with its first Update (Update-with-Start): answers once the application is
 * in the read model. The workflow id is the business id, so one loan id never starts twice.
 */
export async function startLoan(
  deps: Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>,
  input: Omit<LoanInput, 'loanId' | 'bureau'>,
): Promise<LoanRow> {
  const { temporal, config } = deps;
  for (let attempt = 1; ; attempt += 1) {
    const loanId = newLoanId();
    const loan: LoanInput = {
      ...input,
      loanId,
      bureau: {
        requestTimeoutMs: config.LENDING_BUREAU_REQUEST_TIMEOUT,
        attempts: config.LENDING_BUREAU_ATTEMPTS,
      },
      servicing: {
        graceMs: config.LENDING_GRACE_PERIOD,
        reversalWindowMs: config.LENDING_REPAID_REVERSAL_WINDOW,
        autochargeAtMs: config.LENDING_AUTOCHARGE_TIME,
      },
    };
    try {
      await temporal.workflow.executeUpdateWithStart(loanCreatedUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation<typeof lendingLoan>('lendingLoan', {
          workflowId: loanWorkflowId(input.tenantId, loanId),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'FAIL',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [loan],
          typedSearchAttributes: [
            { key: PlatformService, value: 'lending' },
            { key: TenantId, value: input.tenantId },
            { key: LoanId, value: loanId },
            { key: OwnerId, value: input.customerId },
            { key: BusinessStatus, value: input.status },
          ],
          staticSummary: `Loan ${loanId} of customer ${input.customerId}: ${input.terms.amount} ${input.currency} over ${input.terms.term} months (${input.terms.productName})`,
        }),
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError && attempt < 5) continue;
      const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === LoanRefusal.dataRefused)
        throw REFUSALS[LoanRefusal.dataRefused]?.(cause.message) ?? error;
      throw error;
    }
    const row = await findLoan(deps.db, input.tenantId, loanId);
    if (!row) throw new Error(`loan ${loanId} was started but is not in the read model`);
    return row;
  }
}

// --- the customer's details became complete (helper A's customer handlers call this) ---------------

/**
 * Moves the customer's loan applications waiting in Pre-Origination on to Origination (the
 * `detailsCompleted` row). The loans are found through Temporal's visibility (the workflows' search
 * attributes), so only the client is needed; a loan missed here (visibility lags a moment behind a loan
 * created the same instant) is moved by the next details update, or by Process, which checks the
 * details itself.
 */
export async function customerDetailsCompleted(
  client: Client,
  tenantId: string,
  customerId: string,
): Promise<void> {
  const quoted = (value: string) => `'${value.replace(/['\\]/g, '')}'`;
  const query = [
    `WorkflowType = 'lendingLoan'`,
    `ExecutionStatus = 'Running'`,
    `${TenantId.name} = ${quoted(tenantId)}`,
    `${OwnerId.name} = ${quoted(customerId)}`,
    `${BusinessStatus.name} = 'Pre-Origination'`,
  ].join(' AND ');
  const moves: Promise<unknown>[] = [];
  for await (const workflow of client.workflow.list({ query })) {
    moves.push(
      client.workflow
        .getHandle(workflow.workflowId)
        .executeUpdate(detailsCompletedUpdate)
        // Moved already (or cancelled meanwhile): nothing to do.
        .catch((error: unknown) => {
          if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) return;
          throw error;
        }),
    );
  }
  await Promise.all(moves);
}
