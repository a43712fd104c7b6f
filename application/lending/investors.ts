import { and, asc, count, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import { type IssuedUserToken, issueUserToken, passwordHashOf } from '../../credentials/lending/users.ts';
import type { Database } from '../../db/client.ts';
import { lendingUsers } from '../../db/schema/lending.ts';
import {
  lendingInvestmentShares,
  lendingInvestorBids,
  lendingInvestors,
} from '../../db/schema/lending-investors.ts';
import { lendingLoans } from '../../db/schema/lending-loans.ts';
import { BIDDING_STATUSES } from '../../domain/lending/bids.ts';
import { normalizeLogin } from '../../domain/lending/customers.ts';
import {
  type InvestorDetails,
  type InvestorPreferences,
  preferenceConflicts,
} from '../../domain/lending/investors.ts';
import type { LoanStatus } from '../../domain/lending/loan-lifecycle.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Investors (decision 0052): an investor is a lending user with the investor role (its token acts on
 * Investor/* only, a customer's on Customer/* only). Personal details and preferences are the
 * investor's rows; the loans open to bids (opportunities) and the investor's investments are read from
 * the read model the loan's recordLoan activity writes; bids are ./bids.ts. Another investor's
 * investment, like another tenant's, is not found.
 */

/** Who asks: an investor (the user token's user) of a tenant. */
export interface InvestorCaller {
  tenantId: string;
  investorId: string;
}

// --- account ---------------------------------------------------------------------------------------

/** Investor/Register: an investor user with its password, signed in at once (a user token). */
export async function registerInvestor(
  { db, config }: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenantId, ...input }: { tenantId: string; login: string; password: string; details: InvestorDetails },
): Promise<{ issued: IssuedUserToken; userId: string }> {
  const login = normalizeLogin(input.login);
  if (normalizeLogin(input.password) === login) throw Refusal.field('password', 'must not be the login');
  const passwordHash = await passwordHashOf(input.password);
  const userId = newRecordId('usr');
  await db.transaction(async (tx) => {
    const [user] = await tx
      .insert(lendingUsers)
      .values({ id: userId, tenantId, login, passwordHash, role: 'investor' })
      .onConflictDoNothing()
      .returning({ id: lendingUsers.id });
    if (!user) throw Refusal.conflict('login_taken', 'A user with this login exists');
    const at = new Date();
    await tx
      .insert(lendingInvestors)
      .values({ userId, tenantId, details: input.details, preferences: {}, createdAt: at, updatedAt: at });
  });
  const issued = await issueUserToken(db, { tenantId, userId }, config.LENDING_USER_TOKEN_TTL);
  return { issued, userId };
}

/** The caller's investor row (404 when the user is no investor of the tenant). */
export async function investorRow(db: Database, caller: InvestorCaller) {
  const [row] = await db
    .select()
    .from(lendingInvestors)
    .where(
      and(eq(lendingInvestors.userId, caller.investorId), eq(lendingInvestors.tenantId, caller.tenantId)),
    );
  if (!row) throw Refusal.notFound('Investor');
  return row;
}

export async function investorDetails(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller }: { caller: InvestorCaller },
) {
  return (await investorRow(db, caller)).details;
}

/** PersonalDetails PUT: replaces the details (a field left out is cleared, as Customer/Details PUT). */
export async function updateInvestorDetails(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller, details }: { caller: InvestorCaller; details: InvestorDetails },
): Promise<InvestorDetails> {
  await investorRow(db, caller);
  await db
    .update(lendingInvestors)
    .set({ details, updatedAt: new Date() })
    .where(eq(lendingInvestors.userId, caller.investorId));
  return details;
}

export async function investorPreferences(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller }: { caller: InvestorCaller },
) {
  return (await investorRow(db, caller)).preferences;
}

/** Preferences PUT: replaces the preferences (a bound left out is no bound). */
export async function updateInvestorPreferences(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller, preferences }: { caller: InvestorCaller; preferences: InvestorPreferences },
): Promise<InvestorPreferences> {
  const conflicts = preferenceConflicts(preferences);
  if (conflicts.length > 0) throw Refusal.validation(conflicts);
  await investorRow(db, caller);
  await db
    .update(lendingInvestors)
    .set({ preferences, updatedAt: new Date() })
    .where(eq(lendingInvestors.userId, caller.investorId));
  return preferences;
}

// --- opportunities ---------------------------------------------------------------------------------

export interface OpportunityView {
  loanId: string;
  productName: string;
  amount: string;
  currency: string;
  term: number;
  status: LoanStatus;
  /** What active bids cover, and what is left to bid. */
  funded: string;
  available: string;
}

/** The active bids' sum per loan (a subquery of the read model). */
const fundedOf = (db: Database, tenantId: string) =>
  db
    .select({
      loanId: lendingInvestorBids.loanId,
      funded: sql<string>`sum(${lendingInvestorBids.amount})`.as('funded'),
    })
    .from(lendingInvestorBids)
    .where(and(eq(lendingInvestorBids.tenantId, tenantId), eq(lendingInvestorBids.status, 'active')))
    .groupBy(lendingInvestorBids.loanId)
    .as('funded');

/**
 * Investor/Opportunities: the tenant's loans open for funding with something left to bid, filtered by
 * the investor's preferences, oldest first, a page at a time. No borrower's personal data.
 */
export async function opportunities(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller, page }: { caller: InvestorCaller; page: { pageNumber: number; pageSize: number } },
): Promise<{ items: OpportunityView[]; pageNumber: number; pageSize: number; total: number }> {
  const preferences = (await investorRow(db, caller)).preferences;
  const funded = fundedOf(db, caller.tenantId);
  const fundedAmount = sql<string>`coalesce(${funded.funded}, 0)`;
  const where = and(
    eq(lendingLoans.tenantId, caller.tenantId),
    inArray(lendingLoans.status, [...BIDDING_STATUSES]),
    sql`${lendingLoans.amount} > ${fundedAmount}`,
    ...(preferences.minAmount !== undefined ? [gte(lendingLoans.amount, preferences.minAmount)] : []),
    ...(preferences.maxAmount !== undefined ? [lte(lendingLoans.amount, preferences.maxAmount)] : []),
    ...(preferences.minTerm !== undefined ? [gte(lendingLoans.term, preferences.minTerm)] : []),
    ...(preferences.maxTerm !== undefined ? [lte(lendingLoans.term, preferences.maxTerm)] : []),
    ...(preferences.products?.length ? [inArray(lendingLoans.productName, preferences.products)] : []),
  );
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(lendingLoans)
    .leftJoin(funded, eq(funded.loanId, lendingLoans.loanId))
    .where(where);
  const rows = await db
    .select({
      loanId: lendingLoans.loanId,
      productName: lendingLoans.productName,
      amount: lendingLoans.amount,
      currency: lendingLoans.currency,
      term: lendingLoans.term,
      status: lendingLoans.status,
      funded: sql<string>`to_char(${fundedAmount}, 'FM999999999999990.00')`,
      available: sql<string>`to_char(${lendingLoans.amount} - ${fundedAmount}, 'FM999999999999990.00')`,
    })
    .from(lendingLoans)
    .leftJoin(funded, eq(funded.loanId, lendingLoans.loanId))
    .where(where)
    .orderBy(asc(lendingLoans.createdAt), asc(lendingLoans.loanId))
    .limit(page.pageSize)
    .offset((page.pageNumber - 1) * page.pageSize);
  return { items: rows.map((row) => ({ ...row, status: row.status as LoanStatus })), ...page, total };
}

// --- investments -------------------------------------------------------------------------------------

export interface InvestmentShareView {
  repaymentId: string;
  date: string;
  repaymentAmount: string;
  amount: string;
}

export interface InvestmentView {
  /** The investment's id (its bid's), `id` as the spec names investor objects' keys. */
  id: string;
  loanId: string;
  loanStatus: LoanStatus;
  amount: string;
  currency: string;
  loanAmount: string;
  investedOn: string | null;
  /** The investor's part of the repayments so far (reversed ones left out). */
  repaid: string;
  shares?: InvestmentShareView[];
}

const SERVICED: LoanStatus[] = ['Active', 'Past Due'];

async function investments(db: Database, caller: InvestorCaller, bidId?: string): Promise<InvestmentView[]> {
  const repaid = db
    .select({
      bidId: lendingInvestmentShares.bidId,
      repaid: sql<string>`sum(${lendingInvestmentShares.amount})`.as('repaid'),
    })
    .from(lendingInvestmentShares)
    .where(
      and(eq(lendingInvestmentShares.tenantId, caller.tenantId), eq(lendingInvestmentShares.reversed, false)),
    )
    .groupBy(lendingInvestmentShares.bidId)
    .as('repaid');
  const rows = await db
    .select({
      bid: lendingInvestorBids,
      loanStatus: lendingLoans.status,
      currency: lendingLoans.currency,
      loanAmount: lendingLoans.amount,
      repaid: sql<string>`to_char(coalesce(${repaid.repaid}, 0), 'FM999999999999990.00')`,
    })
    .from(lendingInvestorBids)
    .innerJoin(
      lendingLoans,
      and(
        eq(lendingLoans.tenantId, lendingInvestorBids.tenantId),
        eq(lendingLoans.loanId, lendingInvestorBids.loanId),
      ),
    )
    .leftJoin(repaid, eq(repaid.bidId, lendingInvestorBids.bidId))
    .where(
      and(
        eq(lendingInvestorBids.tenantId, caller.tenantId),
        eq(lendingInvestorBids.investorId, caller.investorId),
        eq(lendingInvestorBids.status, 'invested'),
        inArray(lendingLoans.status, SERVICED),
        ...(bidId ? [eq(lendingInvestorBids.bidId, bidId)] : []),
      ),
    )
    .orderBy(desc(lendingInvestorBids.investedOn), asc(lendingInvestorBids.bidId));
  return rows.map((row) => ({
    id: row.bid.bidId,
    loanId: row.bid.loanId,
    loanStatus: row.loanStatus as LoanStatus,
    amount: row.bid.amount,
    currency: row.currency,
    loanAmount: row.loanAmount,
    investedOn: row.bid.investedOn,
    repaid: row.repaid,
  }));
}

/**
 * Investor/ActiveInvestments: the investor's investments in loans being repaid (Active, Past Due); a
 * list answers `{ items }` (decision 0086).
 */
export async function activeInvestments(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller }: { caller: InvestorCaller },
): Promise<{ items: InvestmentView[] }> {
  return { items: await investments(db, caller) };
}

/** Investor/ActiveInvestments/{id}: one, with its share of each repayment. */
export async function activeInvestment(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller, investmentId }: { caller: InvestorCaller; investmentId: string },
): Promise<InvestmentView> {
  const [investment] = await investments(db, caller, investmentId);
  if (!investment) throw Refusal.notFound('Investment');
  const shares = await db
    .select({
      repaymentId: lendingInvestmentShares.repaymentId,
      date: lendingInvestmentShares.date,
      repaymentAmount: lendingInvestmentShares.repaymentAmount,
      amount: lendingInvestmentShares.amount,
    })
    .from(lendingInvestmentShares)
    .where(
      and(
        eq(lendingInvestmentShares.tenantId, caller.tenantId),
        eq(lendingInvestmentShares.bidId, investmentId),
        eq(lendingInvestmentShares.reversed, false),
      ),
    )
    .orderBy(asc(lendingInvestmentShares.date), asc(lendingInvestmentShares.repaymentId));
  return { ...investment, shares };
}
