import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';

export interface SenderIdActivityDeps {
  db: Database;
}

/** Read-model writes of the sender-ID registration workflow. Both only move a pending registration on. */
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

    async recordSenderIdExpired(input: { registrationId: string }): Promise<void> {
      await db
        .update(messagingSenderIds)
        .set({ status: 'expired' })
        .where(
          and(eq(messagingSenderIds.id, input.registrationId), eq(messagingSenderIds.status, 'pending')),
        );
    },
  };
}
