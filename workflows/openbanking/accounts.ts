import { getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { RefreshError } from '../../activities/openbanking/accounts.ts';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import {
  type ConsentEndReason,
  consentRefreshWorkflowId,
  consentWorkflowId,
} from '../../domain/openbanking/consents.ts';
import { refreshAccount } from './bank-reads.ts';
import { consentEndedSignal } from './consent-refresh.ts';

const { recordAccountRefreshFailed, terminateUnusedConsent } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Cache initialisation of one account (`ob-refresh-<ibanId>`): re-read its balances and transactions
 * from the bank with the stored consent. The read model keeps serving what it had when the bank
 * refuses (429 ACCESS_EXCEEDED, an expired consent) or cannot be reached; the reason is recorded.
 */
export async function accountRefresh(input: { ibanId: string }): Promise<string> {
  try {
    return await refreshAccount(input);
  } catch {
    const reason: RefreshError = 'bank_unavailable';
    await recordAccountRefreshFailed({ ibanId: input.ibanId, reason });
    return reason;
  }
}

/**
 * End a consent the gateway no longer needs (`ob-consent-end-<consentId>`): its last account was deleted
 * (DELETE iban) or its user was (DELETE agent/user). DELETE at the bank, TERMINATED, and the consent's
 * own workflows (waiting for SCA, or refreshing) are told to stop.
 */
export async function consentTermination(input: {
  consentId: string;
  reason?: ConsentEndReason;
}): Promise<string> {
  const { outcome, state } = await terminateUnusedConsent({
    consentId: input.consentId,
    reason: input.reason ?? 'iban_deleted',
  });
  if (outcome === 'terminated') {
    const running = [consentWorkflowId(state), consentRefreshWorkflowId(input.consentId)];
    // Either may have ended already (or never started): then there is nobody to tell.
    await Promise.all(
      running.map((workflowId) =>
        getExternalWorkflowHandle(workflowId)
          .signal(consentEndedSignal)
          .catch(() => undefined),
      ),
    );
  }
  return outcome;
}
