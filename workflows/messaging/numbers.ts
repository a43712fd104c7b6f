import { proxyActivities } from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import type { NumberVerificationInput } from '../../domain/messaging/processes.ts';

/**
 * One verification code for a `from` number (decision 0028): the activity makes the code, keeps its
 * digest and submits it by SMS to the number through the platform's own carrier. The code itself never
 * enters the workflow's history; the account proves the number with POST /numbers/{id}/verify, which
 * checks the digest in the read model. Sending is retried until the code expires.
 */
export async function numberVerification(input: NumberVerificationInput): Promise<'sent' | 'not_sent'> {
  const remainingMs = Math.max(1000, Date.parse(input.expiresAt) - Date.now());
  const { sendNumberVerificationCode } = proxyActivities<MessagingActivities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: remainingMs,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  try {
    return await sendNumberVerificationCode({
      numberId: input.numberId,
      challengeId: input.challengeId,
      number: input.number,
      from: input.from,
    });
  } catch {
    // The code expired before the carrier took it: the account asks for a new one.
    return 'not_sent';
  }
}
