import { and, eq, inArray } from 'drizzle-orm';
import { xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { obConsents } from '../../db/schema/openbanking.ts';
import { CONSENT_END_REASONS, type ConsentEndReason } from '../../domain/openbanking/consents.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { ActivityDeps } from '../shared/deps.ts';
import { consentWithBank, liveAccountsOf } from './consent.ts';

/**
 * Activities of the consent-termination process (workflows/openbanking/consent-termination.ts): ending
 * at its bank a consent the gateway no longer needs.
 */
export function createConsentTerminationActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  return {
    /**
     * Ends a consent the gateway no longer needs: its last account was deleted (DELETE iban) or its user
     * was (DELETE agent/user). DELETE at the bank, then TERMINATED. A consent that a live account of a
     * live user still uses is left alone; one that already ended stays as it is.
     */
    async terminateUnusedConsent(input: {
      consentId: string;
      reason: ConsentEndReason;
    }): Promise<{ outcome: 'terminated' | 'in_use' | 'ended' }> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if ((await liveAccountsOf(db, consent.id)).length > 0) return { outcome: 'in_use' };
      if (consent.status !== 'ACTIVE' && consent.status !== 'AWAITING_SCA') return { outcome: 'ended' };
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
      return { outcome: 'terminated' };
    },
  };
}
