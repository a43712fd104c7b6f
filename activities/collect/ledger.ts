import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { ledgerObligationOf, postLedgerTransaction } from '../../db/collect/ledger.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { payoutReservation } from '../../domain/collect/ledger.ts';

export interface LedgerActivityDeps {
  db: Database;
}

/** The ledger's own activity; the postings themselves are db/collect/ledger.ts. */
export function createLedgerActivities({ db }: LedgerActivityDeps) {
  return {
    /**
     * A cash payout's workflow has started: its amount is reserved from the merchant (or the funding
     * provider account, which the API reserved already) into payouts owed, once.
     */
    async reservePayout(input: { idn: string; at: string }): Promise<void> {
      await db.transaction(async (tx) => {
        const [row] = await tx.select().from(collectObligations).where(eq(collectObligations.idn, input.idn));
        if (!row) throw new Error(`no obligation ${input.idn}`);
        await postLedgerTransaction(tx, payoutReservation(ledgerObligationOf(row)), {
          at: new Date(input.at),
        });
      });
    },
  };
}
