import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import type { SenderIdDecision } from '../../domain/messaging/processes.ts';

export interface SenderIdActivityDeps {
  db: Database;
}

/** Read-model writes of the sender-ID registration workflow; each only moves the registration forward. */
export function createSenderIdActivities({ db }: SenderIdActivityDeps) {
  return {
    async recordSenderIdConfirmed(input: { registrationId: string; confirmedAt: string }): Promise<void> {
      await db
        .update(messagingSenderIds)
        .set({ status: 'confirmed', confirmedAt: new Date(input.confirmedAt) })
        .where(
          and(eq(messagingSenderIds.id, input.registrationId), eq(messagingSenderIds.status, 'pending')),
        );
    },

    /** The operator's decision on a confirmed registration. */
    async recordSenderIdDecision(
      input: SenderIdDecision & { registrationId: string; decidedAt: string },
    ): Promise<void> {
      await db
        .update(messagingSenderIds)
        .set({
          status: input.decision,
          decidedAt: new Date(input.decidedAt),
          decisionReason: input.reason,
          operatorNote: input.note ?? null,
        })
        .where(
          and(eq(messagingSenderIds.id, input.registrationId), eq(messagingSenderIds.status, 'confirmed')),
        );
    },

    /** Not confirmed in time, or not decided in time after the confirmation. */
    async recordSenderIdExpired(input: { registrationId: string }): Promise<void> {
      await db
        .update(messagingSenderIds)
        .set({ status: 'expired' })
        .where(
          and(
            eq(messagingSenderIds.id, input.registrationId),
            inArray(messagingSenderIds.status, ['pending', 'confirmed']),
          ),
        );
    },
  };
}
