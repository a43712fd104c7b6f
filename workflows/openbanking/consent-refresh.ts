import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import { type ConsentState, countRead, nextRefresh } from '../../domain/openbanking/consents.ts';
import { type ConsentRefreshInput, consentEndedSignal } from '../../domain/openbanking/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';

const { consentRefreshPlan, expireConsent, recordAccountRefreshFailed } =
  proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

/**
 * Reading the accounts from their bank again. A bank in maintenance answers 503 with Retry-After:
 * retried for up to 15 minutes, then the round is recorded as failed (a retry past the deadline is not
 * attempted).
 */
const { refreshConsentAccounts } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

/**
 * Keeps an ACTIVE consent's accounts fresh (`ob-consent-refresh-<consentId>`, started by the consent
 * flow once the consent is ACTIVE): every OPENBANKING_REFRESH_INTERVAL, within the bank's
 * frequencyPerDay, read the accounts, balances and transactions again into the read model — until the
 * bank says the consent expired or was revoked, its validUntil day has passed, or the gateway ends it.
 * Continues as new every OPENBANKING_REFRESHES_PER_RUN refreshes, so a 90-day consent keeps a short history.
 */
export async function consentRefresh(input: ConsentRefreshInput): Promise<ConsentState> {
  let ended = false;
  setHandler(consentEndedSignal, () => {
    ended = true;
  });
  const done = (status: ConsentState) => {
    upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
    return status;
  };

  const plan = await consentRefreshPlan({ consentId: input.consentId });
  let reads = input.reads;
  for (let round = 1; plan.status === 'ACTIVE'; round++) {
    const next = nextRefresh({ nowMs: Date.now(), ...plan, reads });
    const dueMs = 'refreshAt' in next ? next.refreshAt : next.expiresAt;
    if (await condition(() => ended, Math.max(0, dueMs - Date.now()))) return done('TERMINATED');
    if ('expiresAt' in next) return done(await expireConsent({ consentId: input.consentId }));

    let status: ConsentState = 'ACTIVE';
    try {
      ({ status } = await refreshConsentAccounts({ consentId: input.consentId }));
    } catch {
      // The bank stayed unreachable: the read model keeps its data and says why; next round tries again.
      await recordAccountRefreshFailed({ consentId: input.consentId, reason: 'bank_unavailable' });
    }
    reads = countRead(reads, Date.now());
    if (status !== 'ACTIVE') return done(status);
    if (ended) return done('TERMINATED');
    if (round >= plan.refreshesPerRun || workflowInfo().continueAsNewSuggested)
      return continueAsNew<typeof consentRefresh>({ consentId: input.consentId, reads });
  }
  return done(plan.status);
}
