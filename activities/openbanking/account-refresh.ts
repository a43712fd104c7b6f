import { and, eq, inArray, isNull } from 'drizzle-orm';
import { type Xs2aClient, xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { aisClientFor } from '../../credentials/openbanking/bank-tokens.ts';
import type { Database } from '../../db/client.ts';
import { obAccounts, obBalances, obBanks, obConsents, obTransactions } from '../../db/schema/openbanking.ts';
import { type ConsentState, transactionRecordOf } from '../../domain/openbanking/consents.ts';
import type { RefreshError } from '../../domain/openbanking/processes.ts';
import { type AccountDetails, type Transaction, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Activities of the account-refresh process (workflows/openbanking/account-refresh.ts): re-reading one
 * account from its bank into the read model (ob_accounts, ob_balances, ob_transactions). The read-model
 * writes here are also those of the consent's first read (consent.ts) and of its scheduled refreshes
 * (consent-refresh.ts). The API only ever reads these tables.
 */

/** How far back the read model reads transactions (XS2A asks for a dateFrom). */
export const TRANSACTION_HISTORY_DAYS = 730;
const INSERT_CHUNK = 1000;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

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
export async function readAccountData(
  deps: Pick<ActivityDeps, 'db'>,
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

export async function recordRefreshError(
  db: Executor,
  accountId: string,
  error: RefreshError,
): Promise<void> {
  await db
    .update(obAccounts)
    .set({ refreshAttemptedAt: new Date(), refreshError: error })
    .where(eq(obAccounts.id, accountId));
}

/** What the bank says about an account, as ob_accounts keeps it. */
export const accountDetailsOf = (details: AccountDetails) => ({
  resourceId: details.resourceId,
  currency: details.currency,
  name: details.name ?? null,
  product: details.product ?? null,
  cashAccountType: details.cashAccountType ?? null,
  ownerName: details.ownerName ?? null,
  bic: details.bic ?? null,
});

/** The refresh error a consent that is no longer ACTIVE gives its accounts. */
export const refreshErrorOfEnded = (status: ConsentState): RefreshError =>
  status === 'EXPIRED' ? 'consent_expired' : 'consent_invalid';

/** Refusals that mean the bank no longer honours the consent. */
const endsConsent = (reason: RefreshError) => reason === 'consent_expired' || reason === 'consent_invalid';

/**
 * The bank refused a read (or could not be reached): records why on the accounts, marks the consent
 * (429: `accessExceededAt`; an expired or revoked consent: EXPIRED / REVOKED, asking the bank which)
 * and answers the reason. An unavailable bank or an unknown failure is thrown, for the activity to retry.
 */
export async function recordRefusal(
  { db, logger }: Pick<ActivityDeps, 'db' | 'logger'>,
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
      await tx.update(obConsents).set({ accessExceededAt: new Date() }).where(eq(obConsents.id, consent.id));
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

export function createAccountRefreshActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  return {
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
      let client: Xs2aClient;
      try {
        client = await aisClientFor(deps, bank, consent);
      } catch (error) {
        // OAuth2 SCA: no usable access token any more; the consent needs a new SCA (decision 0067).
        return (
          await recordRefusal(deps, xs2aClientFor(bank, config, deps.fetch), consent, [account.id], error)
        ).reason;
      }
      try {
        await readAccountData(deps, client, row.consent.bankConsentId, account, consent.scopes);
        return 'refreshed';
      } catch (error) {
        return (await recordRefusal(deps, client, consent, [account.id], error)).reason;
      }
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
  };
}
