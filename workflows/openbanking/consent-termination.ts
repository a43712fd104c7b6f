import { getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import {
  type ConsentTerminationInput,
  consentEndedSignal,
  consentRefreshWorkflowId,
  consentWorkflowId,
} from '../../domain/openbanking/processes.ts';

const { terminateUnusedConsent } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * End a consent the gateway no longer needs (`ob-consent-end-<consentId>`): its last account was deleted
 * (DELETE iban) or its user was (DELETE agent/user). DELETE at the bank, TERMINATED, and the consent's
 * own workflows (waiting for SCA, or refreshing) are told to stop.
 */
export async function consentTermination(input: ConsentTerminationInput): Promise<string> {
  const { outcome } = await terminateUnusedConsent({
    consentId: input.consentId,
    reason: input.reason ?? 'iban_deleted',
  });
  if (outcome === 'terminated') {
    const running = [consentWorkflowId(input.consentId), consentRefreshWorkflowId(input.consentId)];
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
