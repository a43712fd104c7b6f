import { and, eq, isNull } from 'drizzle-orm';
import { type Xs2aClient, xs2aClientFor } from '../../connectors/openbanking/xs2a-client.ts';
import { aisClientFor } from '../../credentials/openbanking/bank-tokens.ts';
import { obAccounts, obConsents } from '../../db/schema/openbanking.ts';
import type { ConsentState } from '../../domain/openbanking/consents.ts';
import type { ConsentRefreshed, ConsentRefreshPlan } from '../../domain/openbanking/processes.ts';
import type { AccountDetails } from '../../domain/openbanking/xs2a.ts';
import type { ActivityDeps } from '../shared/deps.ts';
import { accountDetailsOf, readAccountData, recordRefusal, refreshErrorOfEnded } from './account-refresh.ts';
import { consentWithBank, liveAccountsOf } from './consent.ts';

/**
 * Activities of the consent-refresh process (workflows/openbanking/consent-refresh.ts): the scheduled
 * re-reads of an ACTIVE consent's accounts, and its expiry at the end of its last day.
 */
export function createConsentRefreshActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  return {
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
      const result: ConsentRefreshed = { status: 'ACTIVE', refreshed: 0, refused: 0 };
      let client: Xs2aClient;
      try {
        client = await aisClientFor(deps, bank, consent);
      } catch (error) {
        // OAuth2 SCA: no usable access token any more; the consent needs a new SCA (decision 0067).
        const refusal = await recordRefusal(
          deps,
          xs2aClientFor(bank, config, deps.fetch),
          consent,
          [],
          error,
        );
        return { ...result, status: refusal.status };
      }

      let listed: AccountDetails[] = [];
      try {
        listed = await client.listAccounts(bankConsentId);
      } catch (error) {
        const refusal = await recordRefusal(deps, client, consent, [], error);
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
          const refusal = await recordRefusal(deps, client, consent, [account.id], error);
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
  };
}
