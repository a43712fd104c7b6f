import { and, desc, eq, gte, isNull, lte, sql } from 'drizzle-orm';
import type { UserIdentity } from '../../credentials/openbanking/identity.ts';
import type { Database } from '../../db/client.ts';
import {
  obAccounts,
  obBalances,
  obBanks,
  obConsentAccounts,
  obConsents,
  obListedAccounts,
  obTransactions,
  obUsers,
} from '../../db/schema/openbanking.ts';
import { type ConsentKind, type ConsentState, IBAN_ID_PATTERN } from '../../domain/openbanking/consents.ts';
import {
  accountRefreshWorkflowId,
  consentTerminationWorkflowId,
  openBankingSearchAttributes,
} from '../../domain/openbanking/processes.ts';
import type { ConsentStatus } from '../../domain/openbanking/xs2a.ts';
import type { accountRefresh, consentTermination } from '../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The user's added accounts and what was read of them (GET ibans, balance, transactions, consents,
 * tokens, account-list; DELETE iban; the agent's cache refresh and consent by IBAN). Everything here
 * reads the read model (ob_accounts, ob_balances, ob_transactions, ob_consents); nothing calls a bank.
 */

export type AccountRow = typeof obAccounts.$inferSelect;
export type ConsentRow = typeof obConsents.$inferSelect;

export interface ConsentSummaryView {
  consentId: string;
  status: ConsentState;
  bankStatus: ConsentStatus | null;
  bankStatusCheckedAt: string | null;
  validUntil: string;
  frequencyPerDay: number;
  accessExceededAt: string | null;
}

export interface FreshnessView {
  refreshedAt: string | null;
  refreshAttemptedAt: string | null;
  refreshError: string | null;
}

export interface AccountView {
  ibanId: string;
  iban: string;
  currency: string;
  name: string | null;
  product: string | null;
  ownerName: string | null;
  bic: string | null;
  bankHash: string;
  bankName: string;
  addedAt: string;
  freshness: FreshnessView;
  consent?: ConsentSummaryView;
}

/** A transaction as read from the bank (the read model's row without its keys of ours). */
export type TransactionView = Omit<typeof obTransactions.$inferSelect, 'accountId' | 'date'>;

const toTransactionView = ({
  accountId: _accountId,
  date: _date,
  ...row
}: typeof obTransactions.$inferSelect): TransactionView => row;

const toFreshness = (row: AccountRow): FreshnessView => ({
  refreshedAt: row.refreshedAt?.toISOString() ?? null,
  refreshAttemptedAt: row.refreshAttemptedAt?.toISOString() ?? null,
  refreshError: row.refreshError,
});

const toConsentSummary = (consent: ConsentRow): ConsentSummaryView => ({
  consentId: consent.id,
  status: consent.status,
  bankStatus: consent.bankStatus,
  bankStatusCheckedAt: consent.bankStatusCheckedAt?.toISOString() ?? null,
  validUntil: consent.validUntil,
  frequencyPerDay: consent.frequencyPerDay,
  accessExceededAt: consent.accessExceededAt?.toISOString() ?? null,
});

function toAccountView(
  row: { account: AccountRow; bankName: string; consent: ConsentRow },
  withConsent: boolean,
): AccountView {
  const { account } = row;
  return {
    ibanId: account.id,
    iban: account.iban,
    currency: account.currency,
    name: account.name,
    product: account.product,
    ownerName: account.ownerName,
    bic: account.bic,
    bankHash: account.bankHash,
    bankName: row.bankName,
    addedAt: account.createdAt.toISOString(),
    freshness: toFreshness(account),
    ...(withConsent ? { consent: toConsentSummary(row.consent) } : {}),
  };
}

/**
 * The accounts an agent reaches: live accounts of its live users. For a query that joins ob_users on
 * the account's user.
 */
const agentAccounts = (agentId: string) =>
  and(eq(obAccounts.agentId, agentId), isNull(obAccounts.deletedAt), isNull(obUsers.deletedAt));

/** The user's live accounts with their bank and consent, oldest first (rows; the benchmark reads them too). */
export async function listUserAccounts(deps: Pick<UseCaseDeps, 'db'>, { userId }: { userId: string }) {
  return deps.db
    .select({ account: obAccounts, bankName: obBanks.name, consent: obConsents })
    .from(obAccounts)
    .innerJoin(obBanks, eq(obBanks.bankHash, obAccounts.bankHash))
    .innerJoin(obConsents, eq(obConsents.id, obAccounts.consentId))
    .where(and(eq(obAccounts.userId, userId), isNull(obAccounts.deletedAt)))
    .orderBy(obAccounts.createdAt, obAccounts.id);
}

/** GET ibans: the user's accounts, each with its consent when `withConsent`. */
export async function listAccounts(
  deps: UseCaseDeps,
  { userId, withConsent }: { userId: string; withConsent: boolean },
): Promise<{ ibans: AccountView[] }> {
  const rows = await listUserAccounts(deps, { userId });
  return { ibans: rows.map((row) => toAccountView(row, withConsent)) };
}

/** One live account of the user with its bank and consent; unknown, deleted or another user's is 404. */
export async function findUserAccount(db: Database, userId: string, ibanId: string) {
  const [row] = await db
    .select({ account: obAccounts, bank: obBanks, consent: obConsents })
    .from(obAccounts)
    .innerJoin(obBanks, eq(obBanks.bankHash, obAccounts.bankHash))
    .innerJoin(obConsents, eq(obConsents.id, obAccounts.consentId))
    .where(and(eq(obAccounts.id, ibanId), eq(obAccounts.userId, userId), isNull(obAccounts.deletedAt)))
    .limit(1);
  if (!row) throw Refusal.notFound('Account');
  return row;
}

/** The input of the reads of one account of the calling user. */
export interface AccountOfUser {
  user: UserIdentity;
  ibanId: string;
}

export interface BalanceView {
  ibanId: string;
  iban: string;
  currency: string;
  balances: {
    balanceType: string;
    amount: string;
    currency: string;
    referenceDate: string | null;
    lastChangeDateTime: string | null;
    fetchedAt: string;
  }[];
  freshness: FreshnessView;
}

/** GET balance/{ibanId}: the account's balances as last read from the bank. */
export async function readBalance(deps: UseCaseDeps, { user, ibanId }: AccountOfUser): Promise<BalanceView> {
  const { account } = await findUserAccount(deps.db, user.userId, ibanId);
  const rows = await deps.db
    .select()
    .from(obBalances)
    .where(eq(obBalances.accountId, account.id))
    .orderBy(obBalances.balanceType);
  return {
    ibanId: account.id,
    iban: account.iban,
    currency: account.currency,
    balances: rows.map((row) => ({
      balanceType: row.balanceType,
      amount: row.amount,
      currency: row.currency,
      referenceDate: row.referenceDate,
      lastChangeDateTime: row.lastChangeDateTime,
      fetchedAt: row.fetchedAt.toISOString(),
    })),
    freshness: toFreshness(account),
  };
}

export interface TransactionListView {
  ibanId: string;
  iban: string;
  currency: string;
  dateFrom: string | null;
  dateTo: string | null;
  booked: TransactionView[];
  pending: TransactionView[];
  freshness: FreshnessView;
}

/** GET transactions/{ibanId}: newest first, optionally of the days dateFrom…dateTo (inclusive). */
export async function listTransactions(
  deps: UseCaseDeps,
  {
    user,
    ibanId,
    dateFrom,
    dateTo,
  }: AccountOfUser & { dateFrom?: string | undefined; dateTo?: string | undefined },
): Promise<TransactionListView> {
  const { account } = await findUserAccount(deps.db, user.userId, ibanId);
  const rows = await deps.db
    .select()
    .from(obTransactions)
    .where(
      and(
        eq(obTransactions.accountId, account.id),
        dateFrom ? gte(obTransactions.date, dateFrom) : undefined,
        dateTo ? lte(obTransactions.date, dateTo) : undefined,
      ),
    )
    .orderBy(desc(obTransactions.date), desc(obTransactions.entryReference), obTransactions.transactionId);
  const records = rows.map(toTransactionView);
  return {
    ibanId: account.id,
    iban: account.iban,
    currency: account.currency,
    dateFrom: dateFrom ?? null,
    dateTo: dateTo ?? null,
    booked: records.filter((record) => record.bookingStatus === 'booked'),
    pending: records.filter((record) => record.bookingStatus === 'pending'),
    freshness: toFreshness(account),
  };
}

/** GET transactions/{ibanId}/{transactionId}: one transaction of the user's account, or 404. */
export async function readTransaction(
  deps: UseCaseDeps,
  { user, ibanId, transactionId }: AccountOfUser & { transactionId: string },
): Promise<TransactionView & { ibanId: string }> {
  const { account } = await findUserAccount(deps.db, user.userId, ibanId);
  const [row] = await deps.db
    .select()
    .from(obTransactions)
    .where(and(eq(obTransactions.accountId, account.id), eq(obTransactions.transactionId, transactionId)))
    .limit(1);
  if (!row) throw Refusal.notFound('Transaction');
  return { ibanId: account.id, ...toTransactionView(row) };
}

export interface AccountConsentsView {
  ibanId: string;
  iban: string;
  consents: (ConsentSummaryView & { current: boolean; createdAt: string })[];
}

/** GET consents/{ibanId}: the consents that gave access to the account, the current one first. */
export async function listAccountConsents(
  deps: UseCaseDeps,
  { user, ibanId }: AccountOfUser,
): Promise<AccountConsentsView> {
  const { account } = await findUserAccount(deps.db, user.userId, ibanId);
  const rows = await deps.db
    .select({ consent: obConsents })
    .from(obConsentAccounts)
    .innerJoin(obConsents, eq(obConsents.id, obConsentAccounts.consentId))
    .where(eq(obConsentAccounts.accountId, account.id))
    .orderBy(desc(obConsents.createdAt));
  const consents = rows
    .map(({ consent }) => ({
      ...toConsentSummary(consent),
      current: consent.id === account.consentId,
      createdAt: consent.createdAt.toISOString(),
    }))
    .sort((a, b) => Number(b.current) - Number(a.current));
  return { ibanId: account.id, iban: account.iban, consents };
}

export interface AccountDeleted {
  ibanId: string;
  status: 'deleted';
  consentId: string;
  consentTermination: 'requested' | 'kept';
}

/**
 * DELETE iban/{ibanId}: removes the account with its balances and transactions; when no other account of
 * the user still uses its consent, ends the bank consent in the background (`ob-consent-end-<consentId>`).
 */
export async function deleteAccount(
  deps: UseCaseDeps,
  { user, ibanId }: AccountOfUser,
): Promise<AccountDeleted> {
  const { db, temporal, config } = deps;
  const { account } = await findUserAccount(db, user.userId, ibanId);
  const stillUsed = await db.transaction(async (tx) => {
    await tx.update(obAccounts).set({ deletedAt: new Date() }).where(eq(obAccounts.id, account.id));
    await tx.delete(obBalances).where(eq(obBalances.accountId, account.id));
    await tx.delete(obTransactions).where(eq(obTransactions.accountId, account.id));
    const [used] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(obAccounts)
      .where(and(eq(obAccounts.consentId, account.consentId), isNull(obAccounts.deletedAt)));
    return (used?.count ?? 0) > 0;
  });
  if (!stillUsed) {
    await temporal.workflow.start<typeof consentTermination>('consentTermination', {
      workflowId: consentTerminationWorkflowId(account.consentId),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [{ consentId: account.consentId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: openBankingSearchAttributes({ ...user, bankHash: account.bankHash }),
      staticSummary: `End consent ${account.consentId}: its last account was deleted`,
    });
  }
  return {
    ibanId: account.id,
    status: 'deleted',
    consentId: account.consentId,
    consentTermination: stillUsed ? 'kept' : 'requested',
  };
}

/**
 * Cache initialisation (`POST /api/8/cache/initial/{bankAccountId}`): asks for a fresh read of one bank
 * account (balances, transactions) from its bank, done in the background by the `ob-refresh-<ibanId>`
 * workflow. `bankAccountId` is the account's ibanId; an account none of the agent's live users holds is
 * 404. A refresh already running for the account is the one that answers the request.
 */
export async function requestAccountRefresh(
  deps: UseCaseDeps,
  request: { agentId: string; bankAccountId: string },
): Promise<void> {
  const notFound = Refusal.notFound('Bank account');
  if (!IBAN_ID_PATTERN.test(request.bankAccountId)) throw notFound;
  const [account] = await deps.db
    .select({ id: obAccounts.id, userId: obAccounts.userId, bankHash: obAccounts.bankHash })
    .from(obAccounts)
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.id, request.bankAccountId), agentAccounts(request.agentId)))
    .limit(1);
  if (!account) throw notFound;
  await deps.temporal.workflow.start<typeof accountRefresh>('accountRefresh', {
    workflowId: accountRefreshWorkflowId(account.id),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [{ ibanId: account.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: openBankingSearchAttributes({ agentId: request.agentId, ...account }),
    staticSummary: `Refresh account ${account.id} from its bank`,
  });
}

export interface ConsentDetails {
  iban: string;
  ibanId: string;
  userId: string;
  bankHash: string;
  consentId: string;
  status: string;
  validUntil: string | null;
  createdAt: string;
}

/**
 * The consent details of `iban` among the agent's live users (the most recently added account with that
 * IBAN), or 404. Read from the account read model; `status` is the bank's consent status as last read,
 * or the gateway's state while the bank has not been asked.
 */
export async function findConsentDetailsByIban(
  deps: UseCaseDeps,
  query: { agentId: string; iban: string },
): Promise<ConsentDetails> {
  const [row] = await deps.db
    .select({ account: obAccounts, consent: obConsents })
    .from(obAccounts)
    .innerJoin(obConsents, eq(obConsents.id, obAccounts.consentId))
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.iban, query.iban), agentAccounts(query.agentId)))
    .orderBy(desc(obAccounts.createdAt))
    .limit(1);
  if (!row) throw Refusal.notFound('Consent for this IBAN');
  return {
    iban: row.account.iban,
    ibanId: row.account.id,
    userId: row.account.userId,
    bankHash: row.account.bankHash,
    consentId: row.consent.id,
    status: row.consent.bankStatus ?? row.consent.status,
    validUntil: row.consent.validUntil,
    createdAt: row.consent.createdAt.toISOString(),
  };
}

export interface ConsentTokenView extends ConsentSummaryView {
  kind: ConsentKind;
  bankHash: string;
  bankName: string;
  country: string;
  accounts: number;
  statusReason: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** GET tokens: the user's consents (its tokens at banks), newest first, optionally of one country's banks. */
export async function listConsentTokens(
  deps: UseCaseDeps,
  { userId, country }: { userId: string; country?: string | undefined },
): Promise<{ tokens: ConsentTokenView[] }> {
  const rows = await deps.db
    .select({
      consent: obConsents,
      bankName: obBanks.name,
      country: obBanks.country,
      accounts: sql<number>`(select count(*)::int from ${obAccounts} where ${obAccounts.consentId} = ${obConsents.id} and ${obAccounts.deletedAt} is null)`,
    })
    .from(obConsents)
    .innerJoin(obBanks, eq(obBanks.bankHash, obConsents.bankHash))
    .where(and(eq(obConsents.userId, userId), country ? eq(obBanks.country, country) : undefined))
    .orderBy(desc(obConsents.createdAt));
  return {
    tokens: rows.map((row) => ({
      ...toConsentSummary(row.consent),
      kind: row.consent.kind,
      bankHash: row.consent.bankHash,
      bankName: row.bankName,
      country: row.country,
      accounts: row.accounts,
      statusReason: row.consent.statusReason,
      createdAt: row.consent.createdAt.toISOString(),
      finishedAt: row.consent.finishedAt?.toISOString() ?? null,
    })),
  };
}

export interface ListedAccountView {
  iban: string;
  ownerName: string | null;
  currency: string;
  name: string | null;
  bankHash: string;
  bankName: string;
  consentId: string;
  listedAt: string;
}

/** GET account-list: what the user's account-list consents enumerated, the latest listing per account. */
export async function listListedAccounts(
  deps: UseCaseDeps,
  { userId }: { userId: string },
): Promise<{ accounts: ListedAccountView[] }> {
  const rows = await deps.db
    .select({ listed: obListedAccounts, bankName: obBanks.name })
    .from(obListedAccounts)
    .innerJoin(obBanks, eq(obBanks.bankHash, obListedAccounts.bankHash))
    .where(eq(obListedAccounts.userId, userId))
    .orderBy(desc(obListedAccounts.listedAt));
  const latest = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    const key = `${row.listed.bankHash}|${row.listed.iban}|${row.listed.currency}`;
    if (!latest.has(key)) latest.set(key, row);
  }
  return {
    accounts: [...latest.values()].map(({ listed, bankName }) => ({
      iban: listed.iban,
      ownerName: listed.ownerName,
      currency: listed.currency,
      name: listed.name,
      bankHash: listed.bankHash,
      bankName,
      consentId: listed.consentId,
      listedAt: listed.listedAt.toISOString(),
    })),
  };
}
