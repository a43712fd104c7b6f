import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { qualifiedColumns } from '../../../db/qualified.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../../db/schema/lending-loans.ts';
import { lendingLoanPointsOfSale } from '../../../db/schema/lending-reference-data.ts';
import { lendingLoanServicing } from '../../../db/schema/lending-servicing.ts';
import {
  invalidStatusMessage,
  type LoanOperation,
  LoanRefusal,
  type LoanStatus,
  openLoanStatuses,
  statusesOf,
} from '../../../domain/lending/loan-lifecycle.ts';
import type { LoanActor } from '../../../domain/lending/loan-process.ts';
import type { LoanServicing as LoanServicingRecord } from '../../../domain/lending/servicing.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import type { PointOfSale } from '../vendors.ts';
import { type LoanRecord, type LoanRow, type LoanView, type LoanViewParts, viewOfLoan } from './view.ts';

/**
 * The loan's read model (lending_loans, written by the loan workflow's activities): a loan found for its
 * caller and read with the parts of its view. Every read is scoped by tenant, and a customer's by
 * customer: another's loan is not found.
 */

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

/** A request about one loan of the caller. */
export interface LoanRequest {
  caller: LoanCaller;
  loanId: string;
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
export const mayRead = (caller: Pick<LoanCaller, 'customerId'>, row: LoanRow) =>
  caller.customerId === undefined || row.customerId === caller.customerId;

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
