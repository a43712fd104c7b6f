import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  obAccounts,
  obBalances,
  obBanks,
  obConsentAccounts,
  obConsents,
  obCredentials,
  obListedAccounts,
  obTransactions,
  obUsers,
} from '../../db/schema/openbanking.ts';
import {
  CONSENT_END_REASONS,
  type ConsentEndReason,
  type ConsentScope,
  type ConsentState,
  transactionRecordOf,
} from '../../domain/openbanking/consents.ts';
import { type AccountDetails, type Transaction, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { xs2aClientFor } from './banks.ts';
import { consentWithBank } from './consents.ts';
import type { Xs2aClient } from './xs2a-client.ts';
import { xs2aErrorTypeOf } from './xs2a-client.ts';

/**
 * The account read model (ob_accounts, ob_balances, ob_transactions, ob_listed_accounts), written from
 * the bank by activities: after a consent's SCA (storeConsentAccounts, storeAccountList) and on a
 * refresh (refreshAccount). The API only ever reads these tables.
 */

export interface AccountActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  fetch?: typeof fetch;
}

/** How far back the read model reads transactions (XS2A asks for a dateFrom). */
export const TRANSACTION_HISTORY_DAYS = 730;
const INSERT_CHUNK = 1000;

export const newIbanId = () => `iba_${randomBytes(12).toString('hex')}`;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** Why a refresh did not reach the bank's data, as stored in ob_accounts.refresh_error. */
export type RefreshError =
  | 'access_exceeded'
  | 'bank_unavailable'
  | 'consent_expired'
  | 'consent_invalid'
  | 'account_unknown'
  | 'bank_error';

export function refreshErrorOf(error: unknown): RefreshError | undefined {
  switch (xs2aErrorTypeOf(error)) {
    case Xs2aErrorType.AccessExceeded:
      return 'access_exceeded';
    case Xs2aErrorType.BankUnavailable:
      return 'bank_unavailable';
    case Xs2aErrorType.ConsentExpired:
      return 'consent_expired';
    case Xs2aErrorType.ConsentInvalid:
    case Xs2aErrorType.ConsentUnknown:
      return 'consent_invalid';
    case Xs2aErrorType.ResourceUnknown:
      return 'account_unknown';
    case Xs2aErrorType.FormatError:
    case Xs2aErrorType.ProtocolError:
      return 'bank_error';
    default:
      return undefined;
  }
}

type Executor = Pick<Database, 'insert' | 'delete' | 'update' | 'select'>;

function transactionRows(accountId: string, booked: Transaction[], pending: Transaction[]) {
  const row = (transaction: Transaction, bookingStatus: 'booked' | 'pending') => ({
    accountId,
    date: transaction.bookingDate ?? transaction.valueDate ?? '',
    ...transactionRecordOf(transaction, bookingStatus),
  });
  // A bank may list a transaction twice across pages; the last one wins.
  const rows = new Map<string, ReturnType<typeof row>>();
  for (const transaction of booked) rows.set(transaction.transactionId, row(transaction, 'booked'));
  for (const transaction of pending)
    if (!rows.has(transaction.transactionId))
      rows.set(transaction.transactionId, row(transaction, 'pending'));
  return [...rows.values()];
}

/** Reads an account's balances and transactions from the bank and replaces what the read model holds. */
async function readAccountData(
  deps: AccountActivityDeps,
  client: Xs2aClient,
  bankConsentId: string,
  account: { id: string; resourceId: string },
  scopes: readonly string[],
): Promise<void> {
  const now = new Date();
  const balances = scopes.includes('balances')
    ? (await client.getBalances(bankConsentId, account.resourceId)).balances
    : undefined;
  const report = scopes.includes('transactions')
    ? await client.listTransactions(bankConsentId, account.resourceId, {
        dateFrom: isoDay(new Date(now.getTime() - TRANSACTION_HISTORY_DAYS * 86_400_000)),
        bookingStatus: 'both',
      })
    : undefined;
  await deps.db.transaction(async (tx) => {
    if (balances) {
      await tx.delete(obBalances).where(eq(obBalances.accountId, account.id));
      const unique = [...new Map(balances.map((balance) => [balance.balanceType, balance])).values()];
      if (unique.length > 0)
        await tx.insert(obBalances).values(
          unique.map((balance) => ({
            accountId: account.id,
            balanceType: balance.balanceType,
            amount: balance.balanceAmount.amount,
            currency: balance.balanceAmount.currency,
            referenceDate: balance.referenceDate ?? null,
            lastChangeDateTime: balance.lastChangeDateTime ?? null,
            fetchedAt: now,
          })),
        );
    }
    if (report) {
      await tx.delete(obTransactions).where(eq(obTransactions.accountId, account.id));
      const rows = transactionRows(account.id, report.booked, report.pending);
      for (let start = 0; start < rows.length; start += INSERT_CHUNK)
        await tx.insert(obTransactions).values(rows.slice(start, start + INSERT_CHUNK));
    }
    await tx
      .update(obAccounts)
      .set({ refreshedAt: now, refreshAttemptedAt: now, refreshError: null })
      .where(eq(obAccounts.id, account.id));
  });
}

async function recordRefreshError(db: Executor, accountId: string, error: RefreshError): Promise<void> {
  await db
    .update(obAccounts)
    .set({ refreshAttemptedAt: new Date(), refreshError: error })
    .where(eq(obAccounts.id, accountId));
}

/** Adds or re-links the account of a user to a consent; an IBAN keeps its ibanId across consents. */
/** What the bank says about an account, as ob_accounts keeps it. */
const accountDetailsOf = (details: AccountDetails) => ({
  resourceId: details.resourceId,
  currency: details.currency,
  name: details.name ?? null,
  product: details.product ?? null,
  cashAccountType: details.cashAccountType ?? null,
  ownerName: details.ownerName ?? null,
  bic: details.bic ?? null,
});

async function upsertAccount(
  db: Database,
  consent: typeof obConsents.$inferSelect,
  details: AccountDetails,
): Promise<{ id: string; resourceId: string; iban: string; currency: string }> {
  const values = {
    agentId: consent.agentId,
    consentId: consent.id,
    ...accountDetailsOf(details),
    deletedAt: null,
  };
  const [row] = await db
    .insert(obAccounts)
    .values({
      id: newIbanId(),
      userId: consent.userId,
      bankHash: consent.bankHash,
      iban: details.iban,
      ...values,
    })
    .onConflictDoUpdate({
      target: [obAccounts.userId, obAccounts.bankHash, obAccounts.iban],
      set: values,
    })
    .returning({
      id: obAccounts.id,
      resourceId: obAccounts.resourceId,
      iban: obAccounts.iban,
      currency: obAccounts.currency,
    });
  await db
    .insert(obConsentAccounts)
    .values({ consentId: consent.id, accountId: row!.id })
    .onConflictDoNothing();
  return row!;
}

/** A consent with its bank, for reading accounts: it must have a bank consent by now. */
async function consentToRead(db: Database, consentId: string) {
  const row = await consentWithBank(db, consentId);
  if (!row.consent.bankConsentId)
    throw ApplicationFailure.nonRetryable(`consent ${consentId} has no bank consent`, 'ConsentNotRecorded');
  return { ...row, bankConsentId: row.consent.bankConsentId };
}

/** Live accounts (of a live user) a consent serves. */
async function liveAccountsOf(db: Database, consentId: string) {
  return db
    .select({ account: obAccounts })
    .from(obAccounts)
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.consentId, consentId), isNull(obAccounts.deletedAt), isNull(obUsers.deletedAt)))
    .then((rows) => rows.map((row) => row.account));
}

/** The refresh error a consent that is no longer ACTIVE gives its accounts. */
const refreshErrorOfEnded = (status: ConsentState): RefreshError =>
  status === 'EXPIRED' ? 'consent_expired' : 'consent_invalid';

/** Refusals that mean the bank no longer honours the consent. */
const endsConsent = (reason: RefreshError) => reason === 'consent_expired' || reason === 'consent_invalid';

export interface StoredAccount {
  ibanId: string;
  iban: string;
  currency: string;
}

export interface ConsentRefreshPlan {
  status: ConsentState;
  validUntil: string;
  frequencyPerDay: number;
  /** OPENBANKING_REFRESH_INTERVAL and OPENBANKING_REFRESHES_PER_RUN. */
  intervalMs: number;
  refreshesPerRun: number;
}

export interface ConsentRefreshed {
  /** The consent's state after the refresh: anything but ACTIVE ends its scheduled refreshes. */
  status: ConsentState;
  refreshed: number;
  refused: number;
}

export function createAccountActivities(deps: AccountActivityDeps) {
  const { db, config, logger } = deps;

  /**
   * The bank refused a read (or could not be reached): records why on the accounts, marks the consent
   * (429: `accessExceededAt`; an expired or revoked consent: EXPIRED / REVOKED, asking the bank which)
   * and answers the reason. An unavailable bank or an unknown failure is thrown, for the activity to retry.
   */
  async function recordRefusal(
    client: Xs2aClient,
    consent: typeof obConsents.$inferSelect,
    accountIds: string[],
    error: unknown,
  ): Promise<{ reason: RefreshError; status: ConsentState }> {
    const reason = refreshErrorOf(error);
    if (!reason || reason === 'bank_unavailable') throw error;
    const ended = endsConsent(reason);
    const bankStatus =
      ended && consent.bankConsentId
        ? await client.getConsentStatus(consent.bankConsentId).catch(() => undefined)
        : undefined;
    const status: ConsentState = !ended
      ? consent.status
      : reason === 'consent_expired' || bankStatus === 'expired'
        ? 'EXPIRED'
        : 'REVOKED';
    // The accounts' error and the consent's mark are one write: a reader sees both or neither.
    await db.transaction(async (tx) => {
      // An ended consent serves none of its accounts any more.
      if (ended || accountIds.length > 0)
        await tx
          .update(obAccounts)
          .set({ refreshAttemptedAt: new Date(), refreshError: reason })
          .where(
            and(
              ended ? eq(obAccounts.consentId, consent.id) : inArray(obAccounts.id, accountIds),
              isNull(obAccounts.deletedAt),
            ),
          );
      if (reason === 'access_exceeded')
        await tx
          .update(obConsents)
          .set({ accessExceededAt: new Date() })
          .where(eq(obConsents.id, consent.id));
      if (ended)
        await tx
          .update(obConsents)
          .set({
            status,
            statusReason: `the bank answered ${reason === 'consent_expired' ? 'CONSENT_EXPIRED' : 'CONSENT_INVALID'} on a refresh`,
            ...(bankStatus ? { bankStatus, bankStatusCheckedAt: new Date() } : {}),
            updatedAt: new Date(),
          })
          .where(and(eq(obConsents.id, consent.id), eq(obConsents.status, 'ACTIVE')));
    });
    logger.info({ consentId: consent.id, accountIds, reason }, 'account refresh refused by the bank');
    return { reason, status };
  }

  return {
    /**
     * After a valid SCA: lists the consent's accounts at the bank and stores each with its balances and
     * transactions. A bank that refuses one account's data (429, consent scope) leaves that account
     * listed with its refresh error; an unavailable bank fails the attempt (the activity retries).
     * A consent the gateway ended meanwhile (its user was deleted) stores nothing.
     */
    async storeConsentAccounts(input: { consentId: string }): Promise<StoredAccount[]> {
      const { consent, bank, bankConsentId, userDeletedAt } = await consentToRead(db, input.consentId);
      if (userDeletedAt || consent.status === 'TERMINATED') return [];
      const client = xs2aClientFor(bank, config, deps.fetch);
      const listed = await client.listAccounts(bankConsentId);
      const stored: StoredAccount[] = [];
      for (const details of listed) {
        const account = await upsertAccount(db, consent, details);
        stored.push({ ibanId: account.id, iban: account.iban, currency: account.currency });
        try {
          await readAccountData(deps, client, bankConsentId, account, consent.scopes as ConsentScope[]);
        } catch (error) {
          const reason = refreshErrorOf(error);
          if (!reason || reason === 'bank_unavailable') throw error;
          logger.warn(
            { consentId: consent.id, ibanId: account.id, reason },
            'account data not read after SCA',
          );
          await recordRefreshError(db, account.id, reason);
        }
      }
      return stored;
    },

    /** A one-shot account-list consent: stores the enumerated accounts (IBAN, owner name) once. */
    async storeAccountList(input: { consentId: string }): Promise<number> {
      const { consent, bank, bankConsentId } = await consentToRead(db, input.consentId);
      const listed = await xs2aClientFor(bank, config, deps.fetch).listAccounts(bankConsentId);
      const listedAt = new Date();
      if (listed.length > 0)
        await db
          .insert(obListedAccounts)
          .values(
            listed.map((account) => ({
              consentId: consent.id,
              userId: consent.userId,
              bankHash: consent.bankHash,
              iban: account.iban,
              currency: account.currency,
              ownerName: account.ownerName ?? null,
              name: account.name ?? null,
              listedAt,
            })),
          )
          .onConflictDoNothing();
      return listed.length;
    },

    /**
     * Re-reads one account from its bank with its stored consent (cache initialisation). Never throws for
     * the bank's refusals: 429 ACCESS_EXCEEDED marks the consent, an expired or revoked consent moves the
     * consent to EXPIRED/REVOKED; in every case the read model keeps what it had and records why.
     */
    async refreshAccount(input: { ibanId: string }): Promise<'refreshed' | RefreshError | 'gone'> {
      const [row] = await db
        .select({ account: obAccounts, consent: obConsents, bank: obBanks })
        .from(obAccounts)
        .innerJoin(obConsents, eq(obConsents.id, obAccounts.consentId))
        .innerJoin(obBanks, eq(obBanks.bankHash, obAccounts.bankHash))
        .where(and(eq(obAccounts.id, input.ibanId), isNull(obAccounts.deletedAt)));
      if (!row?.consent.bankConsentId) return 'gone';
      const { account, consent, bank } = row;
      if (consent.status !== 'ACTIVE') {
        const reason = refreshErrorOfEnded(consent.status);
        await recordRefreshError(db, account.id, reason);
        return reason;
      }
      const client = xs2aClientFor(bank, config, deps.fetch);
      try {
        await readAccountData(deps, client, row.consent.bankConsentId, account, consent.scopes);
        return 'refreshed';
      } catch (error) {
        return (await recordRefusal(client, consent, [account.id], error)).reason;
      }
    },

    /** What the scheduled refreshes of a consent go by (read at the start of each workflow run). */
    async consentRefreshPlan(input: { consentId: string }): Promise<ConsentRefreshPlan> {
      const { consent, userDeletedAt } = await consentWithBank(db, input.consentId);
      return {
        // A deleted user's consents are being ended: nothing to refresh.
        status: userDeletedAt && consent.status === 'ACTIVE' ? 'TERMINATED' : consent.status,
        validUntil: consent.validUntil,
        frequencyPerDay: consent.frequencyPerDay,
        intervalMs: config.OPENBANKING_REFRESH_INTERVAL,
        refreshesPerRun: config.OPENBANKING_REFRESHES_PER_RUN,
      };
    },

    /**
     * One scheduled refresh of an ACTIVE consent: the account list (details of the accounts the user
     * kept), then each live account's balances and transactions. Refusals are recorded as for cache
     * initialisation; an expired or revoked consent stops the round and is answered as its new state.
     */
    async refreshConsentAccounts(input: { consentId: string }): Promise<ConsentRefreshed> {
      const { consent, bank, userDeletedAt } = await consentWithBank(db, input.consentId);
      const accounts = await liveAccountsOf(db, consent.id);
      if (consent.status !== 'ACTIVE' || !consent.bankConsentId || userDeletedAt || accounts.length === 0)
        return { status: consent.status, refreshed: 0, refused: 0 };
      const bankConsentId = consent.bankConsentId;
      const client = xs2aClientFor(bank, config, deps.fetch);
      const result: ConsentRefreshed = { status: 'ACTIVE', refreshed: 0, refused: 0 };

      let listed: AccountDetails[] = [];
      try {
        listed = await client.listAccounts(bankConsentId);
      } catch (error) {
        const refusal = await recordRefusal(client, consent, [], error);
        if (refusal.status !== 'ACTIVE') return { ...result, status: refusal.status };
      }
      for (const details of listed) {
        const account = accounts.find((candidate) => candidate.resourceId === details.resourceId);
        if (account)
          await db.update(obAccounts).set(accountDetailsOf(details)).where(eq(obAccounts.id, account.id));
      }

      for (const account of accounts) {
        try {
          await readAccountData(deps, client, bankConsentId, account, consent.scopes);
          result.refreshed += 1;
        } catch (error) {
          const refusal = await recordRefusal(client, consent, [account.id], error);
          result.refused += 1;
          if (refusal.status !== 'ACTIVE') return { ...result, status: refusal.status };
        }
      }
      return result;
    },

    /**
     * The consent's last day (validUntil) has passed: it is EXPIRED (REVOKED when the bank says the user
     * revoked it first). The bank is asked for its status only to record it.
     */
    async expireConsent(input: { consentId: string }): Promise<ConsentState> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if (consent.status !== 'ACTIVE') return consent.status;
      const bankStatus = consent.bankConsentId
        ? await xs2aClientFor(bank, config, deps.fetch)
            .getConsentStatus(consent.bankConsentId)
            .catch(() => undefined)
        : undefined;
      const status =
        bankStatus === 'revokedByPsu' || bankStatus === 'terminatedByTpp' ? 'REVOKED' : 'EXPIRED';
      const now = new Date();
      await db.transaction(async (tx) => {
        await tx
          .update(obConsents)
          .set({
            status,
            statusReason:
              status === 'EXPIRED'
                ? `its last day (validUntil ${consent.validUntil}) has passed`
                : `the bank reports the consent as ${bankStatus}`,
            ...(bankStatus ? { bankStatus, bankStatusCheckedAt: now } : {}),
            updatedAt: now,
          })
          .where(and(eq(obConsents.id, consent.id), eq(obConsents.status, 'ACTIVE')));
        await tx
          .update(obAccounts)
          .set({ refreshAttemptedAt: now, refreshError: refreshErrorOfEnded(status) })
          .where(and(eq(obAccounts.consentId, consent.id), isNull(obAccounts.deletedAt)));
      });
      return status;
    },

    /** Records that a refresh could not reach the bank (after the activity's last retry). */
    async recordAccountRefreshFailed(
      input: ({ ibanId: string } | { consentId: string }) & { reason: RefreshError },
    ): Promise<void> {
      if ('ibanId' in input) return recordRefreshError(db, input.ibanId, input.reason);
      await db
        .update(obAccounts)
        .set({ refreshAttemptedAt: new Date(), refreshError: input.reason })
        .where(and(eq(obAccounts.consentId, input.consentId), isNull(obAccounts.deletedAt)));
    },

    /**
     * Ends a consent the gateway no longer needs: its last account was deleted (DELETE iban) or its user
     * was (DELETE agent/user). DELETE at the bank, then TERMINATED. A consent that a live account of a
     * live user still uses is left alone; one that already ended stays as it is.
     */
    async terminateUnusedConsent(input: {
      consentId: string;
      reason: ConsentEndReason;
    }): Promise<{ outcome: 'terminated' | 'in_use' | 'ended'; state: string }> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if ((await liveAccountsOf(db, consent.id)).length > 0)
        return { outcome: 'in_use', state: consent.state };
      if (consent.status !== 'ACTIVE' && consent.status !== 'AWAITING_SCA')
        return { outcome: 'ended', state: consent.state };
      if (consent.bankConsentId) {
        try {
          await xs2aClientFor(bank, config, deps.fetch).deleteConsent(consent.bankConsentId);
        } catch (error) {
          // Unknown at the bank: already gone there. Anything retryable is retried by the activity.
          if (xs2aErrorTypeOf(error) !== Xs2aErrorType.ConsentUnknown) throw error;
        }
      }
      const now = new Date();
      await db
        .update(obConsents)
        .set({
          status: 'TERMINATED',
          statusReason: CONSENT_END_REASONS[input.reason],
          ...(consent.bankConsentId
            ? { bankStatus: 'terminatedByTpp' as const, bankStatusCheckedAt: now }
            : {}),
          finishedAt: consent.finishedAt ?? now,
          updatedAt: now,
        })
        .where(and(eq(obConsents.id, consent.id), inArray(obConsents.status, ['ACTIVE', 'AWAITING_SCA'])));
      return { outcome: 'terminated', state: consent.state };
    },

    /** DELETE agent/user: the user is marked deleted and every hash of it revoked, at once. */
    async markUserDeleted(input: { userId: string }): Promise<void> {
      const now = new Date();
      await db.transaction(async (tx) => {
        await tx
          .update(obUsers)
          .set({ deletedAt: now })
          .where(and(eq(obUsers.id, input.userId), isNull(obUsers.deletedAt)));
        await tx
          .update(obCredentials)
          .set({ revokedAt: now })
          .where(and(eq(obCredentials.userId, input.userId), isNull(obCredentials.revokedAt)));
      });
    },

    /** The consents of a user that still hold (or may yet hold) access at a bank. */
    async consentsToEnd(input: {
      userId: string;
    }): Promise<{ consentId: string; agentId: string; userId: string; bankHash: string }[]> {
      return db
        .select({
          consentId: obConsents.id,
          agentId: obConsents.agentId,
          userId: obConsents.userId,
          bankHash: obConsents.bankHash,
        })
        .from(obConsents)
        .where(
          and(eq(obConsents.userId, input.userId), inArray(obConsents.status, ['ACTIVE', 'AWAITING_SCA'])),
        )
        .orderBy(obConsents.createdAt);
    },
  };
}
