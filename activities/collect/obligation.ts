import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import {
  type LedgerObligation,
  ledgerKeys,
  payoutRelease,
  settlementPostings,
} from '../../domain/collect/ledger.ts';
import type { ObligationStatus } from '../../domain/collect/obligation.ts';
import type { SettlementSource } from '../../domain/collect/processes.ts';
import type { Config } from '../../platform/config.ts';
import { type LedgerDb, ledgerObligationOf, postingsOf, postLedgerTransaction } from './ledger.ts';

export interface ObligationActivityDeps {
  db: Database;
  config: Pick<Config, 'COLLECT_FEE_BPS'>;
}

export interface ObligationStatusChange {
  idn: string;
  status: ObligationStatus;
  paidAmountMinor?: number | undefined;
  payTime?: string | undefined;
  stan?: string | undefined;
  bcode?: string | undefined;
  /** PAID: where the money came from (posted to the ledger with the status). */
  source?: SettlementSource | undefined;
  /** DENIED: why (the card's decline reason), kept with the event (charge.cgi answers it as REASON). */
  reason?: string | undefined;
  /** When the change happened (workflow time, ISO). */
  at: string;
}

const OPEN: ObligationStatus[] = ['PENDING', 'HELD'];

/**
 * Read-model writes of the obligation workflow. Each only moves an open obligation on, so a retried
 * activity (or a replayed one) changes nothing the second time and records no second event; the
 * ledger postings of the change are written in the same database transaction, once.
 */
export function createObligationActivities({ db, config }: ObligationActivityDeps) {
  return {
    async recordObligationStatus(change: ObligationStatusChange): Promise<void> {
      const at = new Date(change.at);
      await db.transaction(async (tx) => {
        const [row] = await tx
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
          .returning();
        if (!row) return;
        await tx.insert(collectObligationEvents).values({
          idn: change.idn,
          status: change.status,
          at,
          detail: {
            ...(change.paidAmountMinor !== undefined ? { paidAmountMinor: change.paidAmountMinor } : {}),
            ...(change.payTime ? { payTime: change.payTime, stan: change.stan, bcode: change.bcode } : {}),
            ...(change.source ? { source: change.source } : {}),
            ...(change.reason ? { reason: change.reason } : {}),
          },
        });
        await postStatusChange(tx, ledgerObligationOf(row), change, config.COLLECT_FEE_BPS);
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

/**
 * The ledger side of a final state: a PAID obligation posts its settlement (domain/collect/ledger.ts);
 * an expired cash payout gives back its reservation; nothing else moved money.
 */
async function postStatusChange(
  tx: LedgerDb,
  obligation: LedgerObligation,
  change: ObligationStatusChange,
  feeBps: number,
): Promise<void> {
  const at = new Date(change.at);
  if (change.status === 'PAID') {
    if (!change.source || change.paidAmountMinor === undefined) {
      throw new Error(`PAID ${change.idn} without its source or amount`);
    }
    const settlement = settlementPostings(obligation, change.paidAmountMinor, change.source, feeBps);
    await postLedgerTransaction(tx, settlement, { detail: { source: change.source }, at });
    return;
  }
  if (change.status === 'EXPIRED' && obligation.kind === 'payout_office') {
    const reserved = await postingsOf(tx, ledgerKeys.payoutReserved(obligation.idn));
    if (reserved.length > 0) await postLedgerTransaction(tx, payoutRelease(obligation.idn, reserved), { at });
  }
}
