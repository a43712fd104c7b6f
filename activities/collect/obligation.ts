import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import type { ObligationStatus } from '../../domain/collect/obligation.ts';

export interface ObligationActivityDeps {
  db: Database;
}

export interface ObligationStatusChange {
  idn: string;
  status: ObligationStatus;
  paidAmountMinor?: number | undefined;
  payTime?: string | undefined;
  stan?: string | undefined;
  bcode?: string | undefined;
  /** When the change happened (workflow time, ISO). */
  at: string;
}

const OPEN: ObligationStatus[] = ['PENDING', 'HELD'];

/**
 * Read-model writes of the obligation workflow. Each only moves an open obligation on, so a retried
 * activity (or a replayed one) changes nothing the second time and records no second event.
 */
export function createObligationActivities({ db }: ObligationActivityDeps) {
  return {
    async recordObligationStatus(change: ObligationStatusChange): Promise<void> {
      const at = new Date(change.at);
      await db.transaction(async (tx) => {
        const moved = await tx
          .update(collectObligations)
          .set({
            status: change.status,
            paidAmountMinor: change.paidAmountMinor ?? null,
            payTime: change.payTime ?? null,
            stan: change.stan ?? null,
            bcode: change.bcode ?? null,
            updatedAt: at,
            settledAt: at,
          })
          .where(and(eq(collectObligations.idn, change.idn), inArray(collectObligations.status, OPEN)))
          .returning({ idn: collectObligations.idn });
        if (moved.length === 0) return;
        await tx.insert(collectObligationEvents).values({
          idn: change.idn,
          status: change.status,
          at,
          detail: {
            ...(change.paidAmountMinor !== undefined ? { paidAmountMinor: change.paidAmountMinor } : {}),
            ...(change.payTime ? { payTime: change.payTime, stan: change.stan, bcode: change.bcode } : {}),
          },
        });
      });
    },

    async recordObligationExpiry(input: { idn: string; expiresAt: string; at: string }): Promise<void> {
      await db.transaction(async (tx) => {
        const moved = await tx
          .update(collectObligations)
          .set({ expiresAt: new Date(input.expiresAt), updatedAt: new Date(input.at) })
          .where(and(eq(collectObligations.idn, input.idn), inArray(collectObligations.status, OPEN)))
          .returning({ status: collectObligations.status });
        const [row] = moved;
        if (!row) return;
        await tx.insert(collectObligationEvents).values({
          idn: input.idn,
          status: row.status,
          at: new Date(input.at),
          detail: { expiresAt: input.expiresAt },
        });
      });
    },
  };
}
