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
  SenderIdRefusal,
  type SenderIdRegistrationInput,
  type SenderIdStatus,
} from '../../domain/messaging/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';

const { recordSenderIdConfirmed, recordSenderIdExpired } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One sender-ID registration: pending until the account confirms it, expired when the confirmation
 * does not come before `expiresAt`.
 */
export async function senderIdRegistration(input: SenderIdRegistrationInput): Promise<SenderIdStatus> {
  let status: SenderIdStatus = 'pending';

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
        if (status === 'confirmed') {
          throw ApplicationFailure.nonRetryable(
            'The sender ID is already confirmed',
            SenderIdRefusal.alreadyConfirmed,
          );
        }
        if (status === 'expired') {
          throw ApplicationFailure.nonRetryable(
            'The sender ID registration has expired',
            SenderIdRefusal.expired,
          );
        }
      },
    },
  );

  const remainingMs = Date.parse(input.expiresAt) - Date.now();
  if (remainingMs > 0) await condition(() => status !== 'pending', remainingMs);

  if (status === 'pending') {
    status = 'expired';
    await recordSenderIdExpired({ registrationId: input.registrationId });
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  // A confirmation still writing the read model finishes before the workflow does.
  await condition(allHandlersFinished);
  return status;
}
