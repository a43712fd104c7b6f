import { and, eq, inArray, isNull } from 'drizzle-orm';
import { forgetCredentials } from '../../credentials/shared/credential-cache.ts';
import { obConsents, obCredentials, obUsers } from '../../db/schema/openbanking.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Activities of the user-deletion process (workflows/openbanking/user-deletion.ts): the user and its
 * hashes at once, then the consents to end (each by a consent-termination workflow).
 */
export function createUserDeletionActivities({ db }: ActivityDeps) {
  return {
    /** DELETE agent/user: the user is marked deleted and every hash of it revoked, at once. */
    async markUserDeleted(input: { userId: string }): Promise<void> {
      const now = new Date();
      await db.transaction(async (tx) => {
        await tx
          .update(obUsers)
          .set({ deletedAt: now })
          .where(and(eq(obUsers.id, input.userId), isNull(obUsers.deletedAt)));
        await tx
          .update(obCredentials)
          .set({ revokedAt: now })
          .where(and(eq(obCredentials.userId, input.userId), isNull(obCredentials.revokedAt)));
      });
      forgetCredentials(db, obUsers, obCredentials);
    },

    /** The consents of a user that still hold (or may yet hold) access at a bank. */
    async consentsToEnd(input: {
      userId: string;
    }): Promise<{ consentId: string; agentId: string; userId: string; bankHash: string }[]> {
      return db
        .select({
          consentId: obConsents.id,
          agentId: obConsents.agentId,
          userId: obConsents.userId,
          bankHash: obConsents.bankHash,
        })
        .from(obConsents)
        .where(
          and(eq(obConsents.userId, input.userId), inArray(obConsents.status, ['ACTIVE', 'AWAITING_SCA'])),
        )
        .orderBy(obConsents.createdAt);
    },
  };
}
