import { and, eq } from 'drizzle-orm';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import { newVerificationCode, verificationCodeDigest } from '../../credentials/messaging/senders.ts';
import type { Database } from '../../db/client.ts';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';

export interface NumberActivityDeps {
  db: Database;
  carrier: SmsCarrier;
}

/** The activity of the number-verification workflow (numbers). */
export function createNumberActivities({ db, carrier }: NumberActivityDeps) {
  return {
    /**
     * Makes a code, stores its digest on the challenge and submits it by SMS to the number. A retry
     * makes and sends a new code (the earlier one may not have arrived); the last one stored counts.
     * Nothing is sent when the challenge has been replaced or the number verified meanwhile.
     */
    async sendNumberVerificationCode(input: {
      numberId: string;
      challengeId: string;
      number: string;
      from: string;
    }): Promise<'sent' | 'not_sent'> {
      const code = newVerificationCode();
      const current = await db
        .update(messagingSenderNumbers)
        .set({ codeDigest: verificationCodeDigest(input.challengeId, code) })
        .where(
          and(
            eq(messagingSenderNumbers.id, input.numberId),
            eq(messagingSenderNumbers.challengeId, input.challengeId),
            eq(messagingSenderNumbers.status, 'pending'),
          ),
        )
        .returning({ id: messagingSenderNumbers.id });
      if (current.length === 0) return 'not_sent';
      const result = await carrier.submit({
        messageId: input.challengeId,
        to: input.number,
        from: input.from,
        message: `Your sender number verification code is ${code}. It is valid for a few minutes.`,
      });
      return result.outcome === 'submitted' ? 'sent' : 'not_sent';
    },
  };
}
