import { proxyActivities } from '@temporalio/workflow';
import type { createSigningCodeActivities } from '../../activities/lending/signing-codes.ts';
import type { SigningCodeRequest, SigningCodeSent } from '../../domain/lending/sibling-processes.ts';

type SigningCodeActivities = ReturnType<typeof createSigningCodeActivities>;

// The customer waits for the answer: a refusal is not retried (SmsNotSent), our own failures briefly.
const { sendSigningCodeSms } = proxyActivities<SigningCodeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * One signing code sent by SMS (ResendSmsCode, decisions 0040 and 0047): the activity makes the code,
 * records its digest and sends it through the messaging gateway. The workflow's input and history hold
 * the document and where to send from, never the code.
 */
export async function lendingSigningCode(request: SigningCodeRequest): Promise<SigningCodeSent> {
  return sendSigningCodeSms(request);
}
