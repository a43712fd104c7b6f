import { Context } from '@temporalio/activity';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { type CreditToSettle, settleCredit } from '../../db/collect/statement-settlement.ts';
import { statementSummary } from '../../db/collect/statements.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { collectStatementCredits, collectStatements } from '../../db/schema/collect-statements.ts';
import {
  obligationInputOf,
  obligationWorkflowId,
  type PaymentReversal,
  type SettlementSource,
} from '../../domain/collect/processes.ts';
import {
  type ReviewReason,
  type StatementImportInput,
  type StatementImportSummary,
  statementSettledKinds,
} from '../../domain/collect/statement-matching.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';

/**
 * The `statement-import-<id>` workflow's activities (decision 0031): the statement's credits, stored
 * when the operator imported the document (application/collect/statements.ts, db/collect/statements.ts),
 * are matched to obligations with one set-based query, and each matched obligation is settled through
 * its own workflow (payObligation, db/collect/statement-settlement.ts), in batches; reversals of settled
 * credits take their payments back (decision 0063).
 */

export interface StatementDeps {
  db: Database;
  config: Config;
  /** Settlements are Updates of the obligations' workflows. */
  temporal: Client;
}

// --- taking back a payment (decision 0063) ----------------------------------------------------------

export interface ReversalToApply {
  id: number;
  statementId: string;
  entryRef: string;
  obligationIdn: string;
  reversesCreditId: number;
}

/**
 * Takes back the payment of a reversed credit through the obligation's workflow: a new run of
 * `collect-<idn>` started with the reversal un-pays the obligation (PENDING again, the settlement
 * negated), tells the merchant REVERSED and waits for a payment again. Answers `reversed`, or why not
 * (the item then waits in review). Safe to repeat: the reversal recorded with the obligation's events
 * is found first; a run still closing after the payment makes the activity try again.
 */
export async function reverseCredit(
  deps: Pick<StatementDeps, 'db' | 'temporal' | 'config'>,
  credit: ReversalToApply,
): Promise<'reversed' | { notReversed: string }> {
  const { db } = deps;
  const [obligation] = await db
    .select()
    .from(collectObligations)
    .where(eq(collectObligations.idn, credit.obligationIdn));
  const [original] = await db
    .select({ statementId: collectStatementCredits.statementId, entryRef: collectStatementCredits.entryRef })
    .from(collectStatementCredits)
    .where(eq(collectStatementCredits.id, credit.reversesCreditId));
  if (!obligation || !original) return { notReversed: `obligation ${credit.obligationIdn} not found` };
  const events = await db
    .select({ status: collectObligationEvents.status, detail: collectObligationEvents.detail })
    .from(collectObligationEvents)
    .where(eq(collectObligationEvents.idn, obligation.idn))
    .orderBy(desc(collectObligationEvents.id));
  const recorded = (event: (typeof events)[number]) => event.detail.reversal as PaymentReversal | undefined;
  if (
    events.some(
      (event) =>
        recorded(event)?.statementId === credit.statementId && recorded(event)?.entryRef === credit.entryRef,
    )
  ) {
    return 'reversed';
  }
  const paidBy = events.find((event) => event.status === 'PAID')?.detail.source as
    | SettlementSource
    | undefined;
  if (obligation.status !== 'PAID') {
    return {
      notReversed: `obligation ${obligation.idn} is ${obligation.status}, not paid: nothing was taken back`,
    };
  }
  if (
    paidBy?.channel !== 'bank_statement' ||
    paidBy.statementId !== original.statementId ||
    paidBy.entryRef !== original.entryRef
  ) {
    return {
      notReversed: `obligation ${obligation.idn} is paid by ${paidBy?.channel === 'bank_statement' ? `credit ${paidBy.entryRef}` : (paidBy?.channel ?? 'another channel')}, not by the reversed credit: nothing was taken back`,
    };
  }
  const reversal: PaymentReversal = {
    statementId: credit.statementId,
    entryRef: credit.entryRef,
    reverses: original,
    round: events.filter((event) => recorded(event) !== undefined).length + 1,
    ...(obligation.payTime ? { payTime: obligation.payTime } : {}),
  };
  try {
    await deps.temporal.workflow.start('collectObligation', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: obligationWorkflowId(obligation.kind, obligation.idn),
      // The run that took the payment has closed; a new run of the same id takes it back.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [obligationInputOf(obligation, reversal)],
      typedSearchAttributes: [
        { key: PlatformService, value: 'collect' },
        { key: OwnerId, value: obligation.merchantMin },
        { key: BusinessStatus, value: 'PAID' },
      ],
      staticSummary: `reversal of the payment of ${obligation.kind.replace('_', ' ')} ${obligation.idn}: invoice ${obligation.invoice} of ${obligation.merchantMin}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    // A run is open: the one that took the payment is still closing (or this reversal's own run started
    // on an earlier attempt, found by its recorded event next time). Try again.
    throw ApplicationFailure.retryable(
      `the workflow of obligation ${obligation.idn} is still running; the reversal is tried again`,
      'ObligationWorkflowRunning',
    );
  }
  return 'reversed';
}

// --- the import workflow's activities ------------------------------------------------------------

export function createStatementActivities(deps: StatementDeps) {
  const { db } = deps;
  return {
    /**
     * Classifies every received credit of the statement in one statement: matched (its obligation is
     * open, of a bank-payable kind, same amount and currency, and no other credit claimed it; the first
     * in statement order wins) or in review with the reason. Repeating it changes nothing.
     */
    async matchStatementCredits({ statementId }: StatementImportInput): Promise<void> {
      const kinds = sql.join(
        statementSettledKinds.map((kind) => sql`${kind}`),
        sql`, `,
      );
      await db.execute(sql`
        with candidate as (
          select c.id, c.idn, c.position, o.idn as known,
            case
              when o.idn is null then 'unknown_idn'
              when o.kind not in (${kinds}) then 'wrong_kind'
              when o.currency <> c.currency then 'currency_differs'
              when o.amount_minor <> c.amount_minor then 'amount_differs'
              when exists (
                select 1 from collect_statement_credits p
                where p.obligation_idn = c.idn and p.id <> c.id
                  and (p.state in ('matched', 'settled') or (p.state = 'resolved' and p.resolution = 'settled'))
              ) then 'duplicate_credit'
              when o.status = 'PAID' then 'obligation_paid'
              when o.status = 'EXPIRED' or o.expires_at <= now() then 'obligation_expired'
              when o.status not in ('PENDING', 'HELD') then 'obligation_closed'
            end as reason
          from collect_statement_credits c
          left join collect_obligations o on o.idn = c.idn
          where c.statement_id = ${statementId} and c.state = 'received'
        ),
        ranked as (
          select id, known, reason,
            row_number() over (partition by idn, reason is null order by position) as rank
          from candidate
        )
        update collect_statement_credits c set
          state = case when r.reason is null and r.rank = 1 then 'matched' else 'review' end,
          reason = case when r.reason is not null then r.reason
                        when r.rank > 1 then 'duplicate_credit' end,
          obligation_idn = r.known
        from ranked r
        where c.id = r.id
      `);
    },

    /**
     * Settles up to `limit` matched credits of the statement through their obligations' workflows and
     * records the outcomes; answers how many matched credits remain.
     */
    async settleStatementCredits({
      statementId,
      limit,
    }: StatementImportInput & { limit?: number }): Promise<{ remaining: number }> {
      // Runs recorded before decision 0071 pass the batch size; later ones take the configured one.
      const batchSize = limit ?? deps.config.COLLECT_STATEMENT_SETTLE_BATCH;
      await applyReversals(deps, statementId, batchSize);
      const batch = await db
        .select({
          id: collectStatementCredits.id,
          statementId: collectStatementCredits.statementId,
          entryRef: collectStatementCredits.entryRef,
          obligationIdn: collectObligations.idn,
          kind: collectObligations.kind,
        })
        .from(collectStatementCredits)
        .innerJoin(collectObligations, eq(collectObligations.idn, collectStatementCredits.obligationIdn))
        .where(
          and(
            eq(collectStatementCredits.statementId, statementId),
            eq(collectStatementCredits.state, 'matched'),
          ),
        )
        .orderBy(asc(collectStatementCredits.position))
        .limit(batchSize);

      // A fixed number of lanes, each paying one obligation at a time: at most that many in flight.
      const outcomes = new Map<'settled' | ReviewReason, number[]>();
      let next = 0;
      const lane = async () => {
        for (let index = next++; index < batch.length; index = next++) {
          const credit = batch[index] as CreditToSettle;
          const outcome = await settleCredit(deps, credit);
          const ids = outcomes.get(outcome) ?? [];
          ids.push(credit.id);
          outcomes.set(outcome, ids);
          Context.current().heartbeat(index);
        }
      };
      const lanes = Math.min(deps.config.COLLECT_STATEMENT_SETTLE_CONCURRENCY, batch.length);
      await Promise.all(Array.from({ length: lanes }, lane));

      // Recorded once per outcome; a crash before this repeats the batch, which settles nothing twice.
      await db.transaction(async (tx) => {
        for (const [outcome, ids] of outcomes) {
          await tx
            .update(collectStatementCredits)
            .set(
              outcome === 'settled'
                ? { state: 'settled', settledAt: new Date() }
                : { state: 'review', reason: outcome },
            )
            .where(
              and(inArray(collectStatementCredits.id, ids), eq(collectStatementCredits.state, 'matched')),
            );
        }
      });
      const [left] = await db
        .select({ remaining: count() })
        .from(collectStatementCredits)
        .where(
          and(
            eq(collectStatementCredits.statementId, statementId),
            inArray(collectStatementCredits.state, ['matched', 'reversing']),
          ),
        );
      return { remaining: left?.remaining ?? 0 };
    },

    async completeStatementImport({ statementId }: StatementImportInput): Promise<StatementImportSummary> {
      await db
        .update(collectStatements)
        .set({ status: 'imported', importedAt: new Date() })
        .where(and(eq(collectStatements.id, statementId), eq(collectStatements.status, 'importing')));
      return statementSummary(db, statementId);
    },
  };
}

/**
 * Up to `limit` of the statement's reversals of settled credits, taken back one by one (they are few):
 * `reversed` with the credit they reversed, or into review with why not.
 */
async function applyReversals(deps: StatementDeps, statementId: string, limit: number): Promise<void> {
  const { db } = deps;
  const reversals = await db
    .select({
      id: collectStatementCredits.id,
      statementId: collectStatementCredits.statementId,
      entryRef: collectStatementCredits.entryRef,
      obligationIdn: collectStatementCredits.obligationIdn,
      reversesCreditId: collectStatementCredits.reversesCreditId,
      reasonDetail: collectStatementCredits.reasonDetail,
    })
    .from(collectStatementCredits)
    .where(
      and(
        eq(collectStatementCredits.statementId, statementId),
        eq(collectStatementCredits.state, 'reversing'),
      ),
    )
    .orderBy(asc(collectStatementCredits.position))
    .limit(limit);
  for (const [index, reversal] of reversals.entries()) {
    const { obligationIdn, reversesCreditId } = reversal;
    const outcome =
      obligationIdn && reversesCreditId
        ? await reverseCredit(deps, { ...reversal, obligationIdn, reversesCreditId })
        : { notReversed: 'the reversed credit is not known' };
    await db.transaction(async (tx) => {
      if (outcome === 'reversed') {
        await tx
          .update(collectStatementCredits)
          .set({ state: 'reversed', settledAt: new Date() })
          .where(
            and(eq(collectStatementCredits.id, reversal.id), eq(collectStatementCredits.state, 'reversing')),
          );
        // The reversed credit no longer pays the obligation: a later credit may.
        if (reversesCreditId) {
          await tx
            .update(collectStatementCredits)
            .set({ state: 'reversed' })
            .where(eq(collectStatementCredits.id, reversesCreditId));
        }
        return;
      }
      await tx
        .update(collectStatementCredits)
        .set({
          state: 'review',
          reason: 'credit_reversed',
          reasonDetail: `${reversal.reasonDetail ?? 'a reversal (RvslInd) of an earlier credit'}; ${outcome.notReversed}`,
        })
        .where(
          and(eq(collectStatementCredits.id, reversal.id), eq(collectStatementCredits.state, 'reversing')),
        );
    });
    Context.current().heartbeat(`reversal ${index}`);
  }
}
