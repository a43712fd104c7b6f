import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  allHandlersFinished,
  condition,
  executeChild,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import {
  consentTerminationWorkflowId,
  openBankingSearchAttributes,
  userDeletedUpdate,
} from '../../domain/openbanking/processes.ts';
import { consentTermination } from './consent-termination.ts';

const { markUserDeleted, consentsToEnd } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Deleting a user (`ob-user-deletion-<userId>`, an Update-with-start from DELETE agent/user): mark the
 * user deleted and revoke its hashes (the API answers 204 then), then end each of its consents at its
 * bank through `consentTermination` (TERMINATED), however long a bank takes to answer.
 */
export async function userDeletion(input: { userId: string }): Promise<number> {
  let deleted = false;
  setHandler(userDeletedUpdate, async () => {
    await condition(() => deleted);
  });

  await markUserDeleted({ userId: input.userId });
  deleted = true;

  const consents = await consentsToEnd({ userId: input.userId });
  await Promise.all(
    consents.map((consent) =>
      executeChild(consentTermination, {
        workflowId: consentTerminationWorkflowId(consent.consentId),
        args: [{ consentId: consent.consentId, reason: 'user_deleted' }],
        typedSearchAttributes: openBankingSearchAttributes(consent),
        staticSummary: `End consent ${consent.consentId}: its user was deleted`,
      }).catch((error: unknown) => {
        // Already being ended (DELETE iban of its last account): that run does it.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }),
    ),
  );
  await condition(allHandlersFinished);
  return consents.length;
}
