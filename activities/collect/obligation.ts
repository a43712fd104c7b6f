import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  type LedgerDb,
  ledgerObligationOf,
  postingsOf,
  postLedgerTransaction,
} from '../../db/collect/ledger.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import {
  type LedgerObligation,
  ledgerKeys,
  payoutRelease,
  settlementPostings,
  settlementReversal,
} from '../../domain/collect/ledger.ts';
import type { ObligationStatus } from '../../domain/collect/obligation.ts';
import type { PaymentReversal, SettlementSource } from '../../domain/collect/processes.ts';
import type { Config } from '../../platform/config.ts';

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
  /** PAID after `round` payments were taken back (decision 0063): the settlement's ledger key. */
  round?: number | undefined;
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

    /**
     * A payment taken back by the bank (decision 0063), in one transaction: the obligation PAID by the
     * reversed credit is PENDING again (paid fields cleared), the change is an event, and its
     * settlement is negated in the ledger. Answers the status it finds: PENDING when it moved it (or
     * had, on a retry), anything else when the obligation was not paid by that credit (nothing written).
     */
    async recordObligationReversal(input: {
      idn: string;
      reversal: PaymentReversal;
      at: string;
    }): Promise<{ applied: boolean; status: ObligationStatus }> {
      const { idn, reversal } = input;
      const at = new Date(input.at);
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(collectObligations)
          .where(eq(collectObligations.idn, idn))
          .for('update');
        if (!row) throw new Error(`no obligation ${idn}`);
        const events = await tx
          .select({ status: collectObligationEvents.status, detail: collectObligationEvents.detail })
          .from(collectObligationEvents)
          .where(eq(collectObligationEvents.idn, idn))
          .orderBy(desc(collectObligationEvents.id));
        if (events.some((event) => sameReversal(event.detail.reversal, reversal))) {
          return { applied: true, status: row.status };
        }
        const paidBy = events.find((event) => event.status === 'PAID')?.detail.source as
          | SettlementSource
          | undefined;
        const reversesIt =
          paidBy?.channel === 'bank_statement' &&
          paidBy.statementId === reversal.reverses.statementId &&
          paidBy.entryRef === reversal.reverses.entryRef;
        if (row.status !== 'PAID' || !reversesIt) return { applied: false, status: row.status };
        await tx
          .update(collectObligations)
          .set({
            status: 'PENDING',
            paidAmountMinor: null,
            payTime: null,
            stan: null,
            bcode: null,
            settledAt: null,
            updatedAt: at,
          })
          .where(eq(collectObligations.idn, idn));
        await tx.insert(collectObligationEvents).values({ idn, status: 'PENDING', at, detail: { reversal } });
        const settled = await postingsOf(tx, ledgerKeys.settlementOfRound(idn, reversal.round - 1));
        await postLedgerTransaction(tx, settlementReversal(idn, reversal.round, settled), {
          detail: { reversal },
          at,
        });
        return { applied: true, status: 'PENDING' as const };
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
    const key = ledgerKeys.settlementOfRound(obligation.idn, change.round ?? 0);
    await postLedgerTransaction(tx, { ...settlement, key }, { detail: { source: change.source }, at });
    return;
  }
  if (change.status === 'EXPIRED' && obligation.kind === 'payout_office') {
    const reserved = await postingsOf(tx, ledgerKeys.payoutReserved(obligation.idn));
    if (reserved.length > 0) await postLedgerTransaction(tx, payoutRelease(obligation.idn, reserved), { at });
  }
}

const sameReversal = (recorded: unknown, reversal: PaymentReversal) =>
  typeof recorded === 'object' &&
  recorded !== null &&
  (recorded as PaymentReversal).statementId === reversal.statementId &&
  (recorded as PaymentReversal).entryRef === reversal.entryRef;
