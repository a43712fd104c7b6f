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
import type { Database } from '../../../db/client.ts';
import {
  isClosed,
  type LoanOperation,
  LoanRefusal,
  statusesOf,
} from '../../../domain/lending/loan-lifecycle.ts';
import {
  detailsCompletedUpdate,
  type LoanInput,
  type LoanSnapshot,
  loanCreatedUpdate,
  loanWorkflowId,
} from '../../../domain/lending/loan-process.ts';
import {
  BusinessStatus,
  LoanId,
  OwnerId,
  PlatformService,
  TenantId,
} from '../../../domain/search-attributes.ts';
import type { lendingLoan } from '../../../workflows/lending/loan.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { audienceOf, findLoan, invalidStatus, type LoanCaller, loanOf, loanRecordOf } from './record.ts';
import { type LoanRecord, type LoanRow, type LoanView, viewOfLoan } from './view.ts';

/**
 * The loan's workflow as the use cases reach it: started with its first Update (Update-with-Start), moved
 * by an Update validated there by the transition table, its refusals the platform's errors.
 */

type Deps = Pick<UseCaseDeps, 'db' | 'temporal'>;
type LoanHandle = WorkflowHandle<typeof lendingLoan>;

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

/** Finds the caller's loan, runs `operation`'s Update and answers the loan as recorded. */
export async function moveLoanOf(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  operation: LoanOperation,
  run: (loan: LoanHandle) => Promise<LoanSnapshot>,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  return viewOfLoan(await moveLoan(deps, row, operation, run), audienceOf(caller));
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
