import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import {
  confirmSenderIdUpdate,
  decideSenderIdUpdate,
  SenderIdRefusal,
  type SenderIdRegistrationInput,
  type SenderIdStatus,
} from '../../domain/messaging/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';

const { recordSenderIdConfirmed, recordSenderIdDecision, recordSenderIdExpired } =
  proxyActivities<MessagingActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

/** Workflows started before the approval step existed wait this long for the operator. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 30 * 86_400_000;

/**
 * One sender-ID registration: pending until the account confirms it, then confirmed until an operator
 * approves or rejects it (decision 0028). Expired when the confirmation does not come before
 * `expiresAt`, or the decision not within `approvalTimeoutMs` of the confirmation.
 */
export async function senderIdRegistration(input: SenderIdRegistrationInput): Promise<SenderIdStatus> {
  // Moved by the update handlers: typed wide so that the checks below are not narrowed to 'pending'.
  let status = 'pending' as SenderIdStatus;

  setHandler(
    confirmSenderIdUpdate,
    async () => {
      // The state moves before the first await, so a second confirmation is refused by the validator.
      status = 'confirmed';
      const confirmedAt = new Date().toISOString();
      await recordSenderIdConfirmed({ registrationId: input.registrationId, confirmedAt });
      return { confirmedAt };
    },
    {
      validator: () => {
        if (status === 'expired') {
          throw ApplicationFailure.nonRetryable(
            'The sender ID registration has expired',
            SenderIdRefusal.expired,
          );
        }
        if (status !== 'pending') {
          throw ApplicationFailure.nonRetryable(
            'The sender ID is already confirmed',
            SenderIdRefusal.alreadyConfirmed,
          );
        }
      },
    },
  );

  setHandler(
    decideSenderIdUpdate,
    async (decision) => {
      status = decision.decision;
      const decidedAt = new Date().toISOString();
      await recordSenderIdDecision({ registrationId: input.registrationId, decidedAt, ...decision });
      return { decidedAt };
    },
    {
      validator: (_decision) => {
        if (status !== 'confirmed') {
          throw ApplicationFailure.nonRetryable(
            `The sender ID is ${status}, not waiting for approval`,
            SenderIdRefusal.notAwaitingApproval,
          );
        }
      },
    },
  );

  const remainingMs = Date.parse(input.expiresAt) - Date.now();
  if (remainingMs > 0) await condition(() => status !== 'pending', remainingMs);
  if (status === 'confirmed') {
    upsertSearchAttributes([{ key: BusinessStatus, value: 'confirmed' }]);
    await condition(() => status !== 'confirmed', input.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS);
  }

  if (status === 'pending' || status === 'confirmed') {
    status = 'expired';
    await recordSenderIdExpired({ registrationId: input.registrationId });
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  // A confirmation or decision still writing the read model finishes before the workflow does.
  await condition(allHandlersFinished);
  return status;
}
