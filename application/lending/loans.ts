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
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { qualifiedColumns } from '../../db/qualified.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../db/schema/lending-loans.ts';
import { lendingLoanPointsOfSale } from '../../db/schema/lending-reference-data.ts';
import { lendingLoanServicing } from '../../db/schema/lending-servicing.ts';
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
import type { LoanServicing as LoanServicingRecord } from '../../domain/lending/servicing.ts';
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
import { type ServicingView, servicingViewOf } from './loan-servicing.ts';
import type { PointOfSale } from './reference-data.ts';

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

/**
 * What a loan's view adds to its row: its status history (by version), the point of sale it was created
 * with, and its servicing (written with the loan row that records the payout: none before it).
 */
export interface LoanViewParts {
  history: {
    status: LoanStatus;
    at: string;
    by: LoanActor['role'];
    comments: string | null;
    reasonId: string | null;
  }[];
  pointOfSale: PointOfSale | null;
  servicing: LoanServicingRecord | null;
}

/** A loan's row with the parts of its view, read together (`loanRecordOf`). */
export interface LoanRecord {
  row: LoanRow;
  parts: LoanViewParts;
}

/** A json or jsonb value as the driver hands it over (parsed by postgres.js and PGlite; text otherwise). */
export const parsedJson = <T>(value: unknown): T =>
  (typeof value === 'string' ? JSON.parse(value) : value) as T;

/**
 * The parts of the view of the loan in `lending_loans`' current row, as correlated sub-selects: added to a
 * select from `lending_loans`, the row and its view cost one statement (issue 24, decision 0075).
 */
const loanColumns = qualifiedColumns(lendingLoans);
const historyColumns = qualifiedColumns(lendingLoanStatusHistory);
const pointOfSaleColumns = qualifiedColumns(lendingLoanPointsOfSale);
const servicingColumns = qualifiedColumns(lendingLoanServicing);

const viewPartsColumns = {
  history: sql<LoanViewParts['history']>`coalesce((select json_agg(json_build_object(
      'status', ${historyColumns.status}, 'at', ${historyColumns.at},
      'by', ${historyColumns.actorRole}, 'comments', ${historyColumns.comments},
      'reasonId', ${historyColumns.reasonId}) order by ${historyColumns.version})
    from ${lendingLoanStatusHistory}
    where ${historyColumns.tenantId} = ${loanColumns.tenantId}
      and ${historyColumns.loanId} = ${loanColumns.loanId}), '[]'::json)`.mapWith((value) =>
    parsedJson<LoanViewParts['history']>(value).map((entry) => ({
      ...entry,
      // As the driver reads a timestamp: a Date, to the millisecond.
      at: new Date(entry.at).toISOString(),
    })),
  ),
  pointOfSale: sql<PointOfSale | null>`(select json_build_object(
      'vendorId', ${pointOfSaleColumns.vendorId}, 'vendorName', ${pointOfSaleColumns.vendorName},
      'storeId', ${pointOfSaleColumns.storeId}, 'storeName', ${pointOfSaleColumns.storeName})
    from ${lendingLoanPointsOfSale}
    where ${pointOfSaleColumns.tenantId} = ${loanColumns.tenantId}
      and ${pointOfSaleColumns.loanId} = ${loanColumns.loanId} limit 1)`.mapWith((value) =>
    value === null ? null : parsedJson<PointOfSale>(value),
  ),
  servicing: sql<LoanServicingRecord | null>`(select ${servicingColumns.servicing}
    from ${lendingLoanServicing}
    where ${servicingColumns.tenantId} = ${loanColumns.tenantId}
      and ${servicingColumns.loanId} = ${loanColumns.loanId} limit 1)`.mapWith((value) =>
    value === null ? null : parsedJson<LoanServicingRecord>(value),
  ),
};

const whereLoan = (tenantId: string, loanId: string) =>
  and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId));

/** The loan's row and the parts of its view, in one statement; undefined for an unknown loan. */
export async function loanRecordOf(
  db: Database,
  tenantId: string,
  loanId: string,
): Promise<LoanRecord | undefined> {
  const [found] = await db
    .select({ row: lendingLoans, ...viewPartsColumns })
    .from(lendingLoans)
    .where(whereLoan(tenantId, loanId))
    .limit(1);
  if (!found) return undefined;
  const { row, ...parts } = found;
  return { row, parts };
}

/** The loan as the API answers it from its record; `audience` customer leaves the bureau's decision out. */
export function viewOfLoan({ row, parts }: LoanRecord, audience: 'customer' | 'management'): LoanView {
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
    pointOfSale: parts.pointOfSale,
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
    // Servicing starts at the payout and is written with the loan row that records it (recordLoan).
    servicing: row.disbursement && parts.servicing ? servicingViewOf(parts.servicing) : null,
    statusHistory: parts.history,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The loan of `row` as the API answers it (its view's parts read in one statement). */
export async function loanView(
  db: Database,
  row: LoanRow,
  audience: 'customer' | 'management',
): Promise<LoanView> {
  const [parts] = await db
    .select(viewPartsColumns)
    .from(lendingLoans)
    .where(whereLoan(row.tenantId, row.loanId))
    .limit(1);
  return viewOfLoan({ row, parts: parts ?? { history: [], pointOfSale: null, servicing: null } }, audience);
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
  if (!row || !mayRead(caller, row)) throw Refusal.notFound('Loan');
  return row;
}

/** Management reads any loan of its tenant, a customer only their own. */
const mayRead = (caller: Pick<LoanCaller, 'customerId'>, row: LoanRow) =>
  caller.customerId === undefined || row.customerId === caller.customerId;

/** The loan as the caller sees it (GET Customer/Loans/{loanId}, Management/Loans/{loanId}). */
export async function readLoan(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: LoanCaller,
  loanId: string,
): Promise<LoanView> {
  const record = await loanRecordOf(deps.db, caller.tenantId, loanId);
  if (!record || !mayRead(caller, record.row)) throw Refusal.notFound('Loan');
  return viewOfLoan(record, audienceOf(caller));
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
 * as recorded: its row and view's parts, read in one statement once the Update has returned (the
 * Update returns once its activity wrote them). A refusal becomes the platform's error of the same code;
 * a closed loan (its workflow has ended) is refused by its status in the read model.
 */
export async function moveLoan(...update: Parameters<typeof sendLoanUpdate>): Promise<LoanRecord> {
  const [deps, row] = update;
  await sendLoanUpdate(...update);
  return recordOfStarted(deps.db, row.tenantId, row.loanId);
}

/** moveLoan's Update alone, for a use case that answers from the Update's result, not the loan. */
export async function sendLoanUpdate(
  deps: Pick<UseCaseDeps, 'db' | 'temporal'>,
  row: LoanRow,
  operation: LoanOperation,
  run: (loan: WorkflowHandle<typeof lendingLoan>) => Promise<LoanSnapshot>,
  /** The operation's rows allow a closed status (a repayment correction of a Repaid loan, decision 0043). */
  closedAllowed = false,
): Promise<LoanSnapshot> {
  if (isClosed(row.status) && !(closedAllowed && statusesOf(operation).includes(row.status)))
    throw invalidStatus(operation, row.status);
  try {
    return await run(
      deps.temporal.workflow.getHandle<typeof lendingLoan>(loanWorkflowId(row.tenantId, row.loanId)),
    );
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
}

/** The record of a loan whose workflow has written it (started or moved). */
async function recordOfStarted(db: Database, tenantId: string, loanId: string): Promise<LoanRecord> {
  const record = await loanRecordOf(db, tenantId, loanId);
  if (!record) throw new Error(`loan ${loanId} is not in the read model`);
  return record;
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
): Promise<LoanRecord> {
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
    return recordOfStarted(deps.db, input.tenantId, loanId);
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
