import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  obAccounts,
  obBalances,
  obBanks,
  obConsentAccounts,
  obConsents,
  obListedAccounts,
  obTransactions,
} from '../../db/schema/openbanking.ts';
import type { ConsentScope } from '../../domain/openbanking/consents.ts';
import { type AccountDetails, type Transaction, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { xs2aClientFor } from './banks.ts';
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
    transactionId: transaction.transactionId,
    bookingStatus,
    date: transaction.bookingDate ?? transaction.valueDate ?? '',
    bookingDate: transaction.bookingDate ?? null,
    valueDate: transaction.valueDate ?? null,
    amount: transaction.transactionAmount.amount,
    currency: transaction.transactionAmount.currency,
    creditorName: transaction.creditorName ?? null,
    creditorIban: transaction.creditorAccount?.iban ?? null,
    debtorName: transaction.debtorName ?? null,
    debtorIban: transaction.debtorAccount?.iban ?? null,
    remittanceInformation: transaction.remittanceInformationUnstructured ?? null,
    entryReference: transaction.entryReference ?? null,
    bankTransactionCode: transaction.bankTransactionCode ?? null,
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
async function upsertAccount(
  db: Database,
  consent: typeof obConsents.$inferSelect,
  details: AccountDetails,
): Promise<{ id: string; resourceId: string; iban: string; currency: string }> {
  const values = {
    agentId: consent.agentId,
    consentId: consent.id,
    resourceId: details.resourceId,
    currency: details.currency,
    name: details.name ?? null,
    product: details.product ?? null,
    cashAccountType: details.cashAccountType ?? null,
    ownerName: details.ownerName ?? null,
    bic: details.bic ?? null,
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

async function consentWithBank(db: Database, consentId: string) {
  const [row] = await db
    .select({ consent: obConsents, bank: obBanks })
    .from(obConsents)
    .innerJoin(obBanks, eq(obBanks.bankHash, obConsents.bankHash))
    .where(eq(obConsents.id, consentId));
  if (!row)
    throw ApplicationFailure.nonRetryable(`consent ${consentId} is not recorded`, 'ConsentNotRecorded');
  if (!row.consent.bankConsentId)
    throw ApplicationFailure.nonRetryable(`consent ${consentId} has no bank consent`, 'ConsentNotRecorded');
  return { ...row, bankConsentId: row.consent.bankConsentId };
}

export interface StoredAccount {
  ibanId: string;
  iban: string;
  currency: string;
}

export function createAccountActivities(deps: AccountActivityDeps) {
  const { db, config, logger } = deps;

  return {
    /**
     * After a valid SCA: lists the consent's accounts at the bank and stores each with its balances and
     * transactions. A bank that refuses one account's data (429, consent scope) leaves that account
     * listed with its refresh error; an unavailable bank fails the attempt (the activity retries).
     */
    async storeConsentAccounts(input: { consentId: string }): Promise<StoredAccount[]> {
      const { consent, bank, bankConsentId } = await consentWithBank(db, input.consentId);
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
      const { consent, bank, bankConsentId } = await consentWithBank(db, input.consentId);
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
        await recordRefreshError(
          db,
          account.id,
          consent.status === 'EXPIRED' ? 'consent_expired' : 'consent_invalid',
        );
        return consent.status === 'EXPIRED' ? 'consent_expired' : 'consent_invalid';
      }
      const client = xs2aClientFor(bank, config, deps.fetch);
      try {
        await readAccountData(deps, client, consent.bankConsentId!, account, consent.scopes);
        return 'refreshed';
      } catch (error) {
        const reason = refreshErrorOf(error);
        // Unavailable: let the activity retry; after its last attempt the workflow records it.
        if (!reason || reason === 'bank_unavailable') throw error;
        // The bank ended the consent: learn how, and stop using it.
        const ended = reason === 'consent_expired' || reason === 'consent_invalid';
        const bankStatus = ended
          ? await client.getConsentStatus(consent.bankConsentId!).catch(() => undefined)
          : undefined;
        // The account's error and the consent's mark are one write: a reader sees both or neither.
        await db.transaction(async (tx) => {
          await recordRefreshError(tx, account.id, reason);
          if (reason === 'access_exceeded')
            await tx
              .update(obConsents)
              .set({ accessExceededAt: new Date() })
              .where(eq(obConsents.id, consent.id));
          if (ended)
            await tx
              .update(obConsents)
              .set({
                status: reason === 'consent_expired' || bankStatus === 'expired' ? 'EXPIRED' : 'REVOKED',
                statusReason: `the bank answered ${reason === 'consent_expired' ? 'CONSENT_EXPIRED' : 'CONSENT_INVALID'} on a refresh`,
                ...(bankStatus ? { bankStatus, bankStatusCheckedAt: new Date() } : {}),
                updatedAt: new Date(),
              })
              .where(and(eq(obConsents.id, consent.id), eq(obConsents.status, 'ACTIVE')));
        });
        logger.info(
          { ibanId: account.id, consentId: consent.id, reason },
          'account refresh refused by the bank',
        );
        return reason;
      }
    },

    /** Records that a refresh could not reach the bank (after the activity's last retry). */
    async recordAccountRefreshFailed(input: { ibanId: string; reason: RefreshError }): Promise<void> {
      await recordRefreshError(db, input.ibanId, input.reason);
    },

    /**
     * Ends a consent no live account uses any more (DELETE iban): DELETE at the bank, then TERMINATED.
     * A consent still used by another account is left alone.
     */
    async terminateUnusedConsent(input: { consentId: string }): Promise<'terminated' | 'in_use' | 'gone'> {
      const [used] = await db
        .select({ count: sql<number>`count(*)::int` })
        .from(obAccounts)
        .where(and(eq(obAccounts.consentId, input.consentId), isNull(obAccounts.deletedAt)));
      if ((used?.count ?? 0) > 0) return 'in_use';
      const [row] = await db
        .select({ consent: obConsents, bank: obBanks })
        .from(obConsents)
        .innerJoin(obBanks, eq(obBanks.bankHash, obConsents.bankHash))
        .where(eq(obConsents.id, input.consentId));
      if (!row?.consent.bankConsentId) return 'gone';
      if (row.consent.status === 'ACTIVE') {
        try {
          await xs2aClientFor(row.bank, config, deps.fetch).deleteConsent(row.consent.bankConsentId);
        } catch (error) {
          // Unknown at the bank: already gone there. Anything retryable is retried by the activity.
          if (xs2aErrorTypeOf(error) !== Xs2aErrorType.ConsentUnknown) throw error;
        }
        await db
          .update(obConsents)
          .set({
            status: 'TERMINATED',
            statusReason: 'its last account was deleted (DELETE iban)',
            bankStatus: 'terminatedByTpp',
            bankStatusCheckedAt: new Date(),
            updatedAt: new Date(),
          })
          .where(and(eq(obConsents.id, input.consentId), eq(obConsents.status, 'ACTIVE')));
      }
      return 'terminated';
    },
  };
}
