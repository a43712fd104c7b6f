import { randomInt } from 'node:crypto';
import { z } from '@hono/zod-openapi';
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
import type { Context } from 'hono';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../db/schema/lending-loans.ts';
import {
  invalidStatusMessage,
  isClosed,
  type LoanOperation,
  LoanRefusal,
  type LoanStatus,
  loanStatuses,
  openLoanStatuses,
  statusesOf,
} from '../../domain/lending/loan-lifecycle.ts';
import {
  detailsCompletedUpdate,
  type LoanActor,
  type LoanInput,
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
import { errorBodySchema } from '../shared/errors.ts';
import { lendingErrorResponses } from './auth.ts';
import type { LendingEnv } from './context.ts';
import { servicingSchema, servicingView } from './servicing-view.ts';

/**
 * Loans for the API: the read model (lending_loans, written by the loan workflow's activities), the
 * workflow's Updates with their refusals as the platform's errors, and the loan as the API answers it.
 * Every read is scoped by tenant, and a customer's by customer: another's loan is not found.
 */

export type LoanRow = typeof lendingLoans.$inferSelect;

// --- what the API answers ------------------------------------------------------------------------

const amountText = z.string().openapi({ example: '1500.00' });

export const loanOfferSchema = z
  .object({
    offerId: z.string().openapi({ example: '482913675-1' }),
    productName: z.string().openapi({ example: 'Personal loan' }),
    amount: amountText,
    term: z.number().int().openapi({ description: 'Monthly instalments', example: 12 }),
  })
  .openapi('LoanOffer');

export const collateralSchema = z
  .object({
    collateralId: z.string().openapi({ example: '1' }),
    kind: z.string().openapi({ example: 'vehicle' }),
    description: z.string().openapi({ example: 'Toyota Corolla 2019, VIN JTDBR32E...' }),
    value: amountText,
  })
  .openapi('Collateral');

export const coApplicantSchema = z
  .object({
    firstName: z.string().trim().min(1).max(100).openapi({ example: 'John' }),
    lastName: z.string().trim().min(1).max(100).openapi({ example: 'Doe' }),
    birthDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
      .optional()
      .openapi({ example: '1988-02-14' }),
    ssn: z.string().trim().min(4).max(20).optional().openapi({ example: '987-65-4321' }),
    email: z.email().max(254).optional().openapi({ example: 'john.doe@example.com' }),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, 'an international number, e.g. +15551234567')
      .optional(),
    relationship: z.string().trim().max(50).optional().openapi({ example: 'spouse' }),
  })
  .strict()
  .openapi('CoApplicant');

const statusChangeSchema = z.object({
  status: z.enum(loanStatuses),
  at: z.string(),
  by: z.enum(['customer', 'management', 'system']),
  comments: z.string().nullable(),
  reasonId: z.string().nullable(),
});

export const loanSchema = z
  .object({
    loanId: z.string().openapi({ example: '482913675' }),
    customerId: z.string(),
    status: z.enum(loanStatuses).openapi({
      description: 'See the transition table (docs/lending.md; decision 0039)',
      example: 'Origination',
    }),
    productName: z.string().openapi({ example: 'Personal loan' }),
    promoCode: z.string().nullable(),
    currency: z.string().openapi({ example: 'EUR' }),
    amount: amountText,
    term: z.number().int().openapi({ description: 'Monthly instalments', example: 12 }),
    secured: z.boolean(),
    offers: z
      .array(loanOfferSchema)
      .openapi({ description: 'The offers of the decision (Offer confirmation)' }),
    acceptedOfferId: z.string().nullable(),
    collaterals: z.array(collateralSchema),
    coApplicant: coApplicantSchema.nullable(),
    rolloverRequested: z.boolean(),
    autocharge: z.object({ enabled: z.boolean(), comment: z.string().nullable() }),
    disbursement: z.object({ amount: amountText, date: z.string() }).nullable(),
    decision: z
      .object({
        outcome: z.enum(['approve', 'decline', 'refer', 'unavailable']),
        score: z.number().nullable(),
        reasons: z.array(z.string()),
        at: z.string(),
      })
      .nullable()
      .openapi({ description: 'The credit bureau’s decision (Management only; null for customers)' }),
    statusHistory: z.array(statusChangeSchema),
    servicing: servicingSchema.nullable().openapi({
      description: 'Schedule, repayments, balances and days past due once paid out (decision 0043)',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Loan');
export type LoanView = z.infer<typeof loanSchema>;

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
    servicing: await servicingView(db, row.tenantId, row.loanId),
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

export const loanIdParams = z.object({
  loanId: z
    .string()
    .max(40)
    .openapi({ param: { name: 'loanId', in: 'path' }, example: '482913675' }),
});

/** The documented errors of a loan operation: the platform's, and 409 for a loan in another status. */
export const loanErrorResponses = {
  ...lendingErrorResponses,
  409: {
    description:
      '`invalid_loan_status` (the message names the current status), or another refusal of the loan ' +
      '(`collateral_required`, `rollover_already_requested`, `rollover_not_requested`, `multiple_offers_disabled`, ' +
      '`decision_in_progress`)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

export const loanAnswer = (description: string) => ({
  200: { description, content: { 'application/json': { schema: loanSchema } } },
  ...loanErrorResponses,
});

// --- reading ---------------------------------------------------------------------------------------

export async function findLoan(db: Database, tenantId: string, loanId: string): Promise<LoanRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingLoans)
    .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)))
    .limit(1);
  return row;
}

/** A loan of the request's tenant (management): 404 for an unknown one or another tenant's. */
export async function tenantLoan(c: Context<LendingEnv>, loanId: string): Promise<LoanRow> {
  const row = await findLoan(c.get('deps').db, c.get('lendingTenant').id, loanId);
  if (!row) throw Refusal.notFound('Loan');
  return row;
}

/** A loan of the customer: 404 for another customer's (existence is not leaked). */
export async function customerLoan(
  c: Context<LendingEnv>,
  customerId: string,
  loanId: string,
): Promise<LoanRow> {
  const row = await findLoan(c.get('deps').db, c.get('lendingTenant').id, loanId);
  if (!row || row.customerId !== customerId) throw Refusal.notFound('Loan');
  return row;
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

// --- moving a loan ------------------------------------------------------------------------------------

/** Who is asking: the customer of the user token, else management (the key). */
export function actorOf(c: Context<LendingEnv>): LoanActor {
  const user = c.get('lendingUser');
  return user?.customerId ? { role: 'customer', id: user.id } : { role: 'management' };
}

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
