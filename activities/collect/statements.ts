import { Context } from '@temporalio/activity';
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, count, desc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { collectStatementCredits, collectStatements } from '../../db/schema/collect-statements.ts';
import type { ObligationKind } from '../../domain/collect/obligation.ts';
import {
  obligationInputOf,
  obligationWorkflowId,
  type PaymentReversal,
  payObligationUpdate,
  type SettlementSource,
  statementImportWorkflowId,
} from '../../domain/collect/processes.ts';
import {
  type BankStatement,
  openStatementDocument,
  REVERSAL_KEY,
  type StatementCredit,
  StatementDocumentError,
  type StatementReading,
  statementIdOf,
  statementPaymentCodes,
} from '../../domain/collect/statement.ts';
import {
  type ReviewReason,
  reviewReasonOfRefusal,
  reviewReasons,
  type StatementImportInput,
  type StatementImportSummary,
  statementPaymentUpdateId,
  statementSettledKinds,
} from '../../domain/collect/statement-matching.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';

/**
 * Bank statements (decision 0031): a camt document is read and stored with its credits in one
 * transaction (importStatementDocument: the upload, the watched folder and the admin command), then the
 * `statement-import-<id>` workflow matches the credits to obligations with one set-based query and
 * settles each matched obligation through its own workflow (payObligation), in batches.
 */

export interface StatementDeps {
  db: Database;
  config: Config;
  /** Settlements are Updates of the obligations' workflows. */
  temporal: Client;
}

// --- receiving a document ------------------------------------------------------------------------

/** The same statement (kind, account, Id) was imported with other content. */
export class StatementConflict extends Error {
  constructor(readonly statementId: string) {
    super(`Statement ${statementId} was imported before with different content (same kind, account and Id)`);
    this.name = 'StatementConflict';
  }
}

export interface ReceivedStatement {
  statementId: string;
  kind: BankStatement['kind'];
  messageDefinition: string;
  account: string;
  documentId: string;
  /** Booked credits in the document, and how many of them an earlier statement had imported already. */
  credits: number;
  alreadyImported: number;
  skipped: BankStatement['skipped'];
  /** Imported before: nothing changed. */
  duplicate: boolean;
  status: 'importing' | 'imported';
}

/** Credits read, looked at for reversals and inserted at a time (one multi-row insert). */
const INSERT_CHUNK = 500;

/**
 * Reads a camt.053/054 document, stores each statement and its credits (once: by the statement's
 * identity and by each credit's bank reference) and starts the statements' import workflows. Throws
 * StatementDocumentError (the document is refused) or StatementConflict.
 *
 * The credits are read and inserted a chunk at a time (openStatementDocument), never all in memory;
 * the whole document is one transaction, so a statement found in conflict (its digest is known once
 * its last entry is read) or an error stores nothing of the document.
 */
export async function importStatementDocument(
  deps: StatementDeps,
  document: {
    /** The document's bytes (decoded as its XML declaration says), or its text. */
    xml: string | Uint8Array;
    origin: 'upload' | 'folder' | 'admin';
    fileName?: string | undefined;
  },
): Promise<ReceivedStatement[]> {
  const { db, config } = deps;
  const size =
    typeof document.xml === 'string' ? Buffer.byteLength(document.xml, 'utf8') : document.xml.byteLength;
  if (size > config.COLLECT_STATEMENT_MAX_BYTES) {
    throw new StatementDocumentError(
      'statement_too_large',
      `The document has ${size} bytes; at most ${config.COLLECT_STATEMENT_MAX_BYTES} are imported (COLLECT_STATEMENT_MAX_BYTES)`,
    );
  }
  const statements = openStatementDocument(document.xml);
  const received = await db.transaction(async (tx) => {
    const stored: ReceivedStatement[] = [];
    for (const statement of statements) stored.push(await storeStatement(tx, statement, document));
    return stored;
  });
  for (const [index, stored] of received.entries()) {
    if (stored.status === 'importing') await startImport(deps, stored, statements[index] as StatementReading);
  }
  return received;
}

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

async function storeStatement(
  tx: Transaction,
  statement: StatementReading,
  document: { origin: string; fileName?: string | undefined },
): Promise<ReceivedStatement> {
  const statementId = statementIdOf(statement);
  const received = () => {
    const { credits, skipped } = statement.totals();
    return {
      statementId,
      kind: statement.kind,
      messageDefinition: statement.messageDefinition,
      account: statement.account,
      documentId: statement.documentId,
      credits,
      skipped,
    };
  };
  // The row first (its counts and digest once every entry is read): a concurrent import of the same
  // statement waits for this transaction here and then finds it.
  const inserted = await tx
    .insert(collectStatements)
    .values({
      id: statementId,
      kind: statement.kind,
      messageDefinition: statement.messageDefinition,
      messageId: statement.messageId,
      documentId: statement.documentId,
      account: statement.account,
      digest: '',
      origin: document.origin,
      fileName: document.fileName ?? null,
      status: 'importing',
      credits: 0,
      alreadyImported: 0,
      debitsSkipped: 0,
      notBookedSkipped: 0,
    })
    .onConflictDoNothing()
    .returning({ id: collectStatements.id });
  if (inserted.length === 0) {
    const [known] = await tx.select().from(collectStatements).where(eq(collectStatements.id, statementId));
    if (!known) throw new Error(`statement ${statementId} vanished`);
    // Read to the end for the digest only: the same content is a duplicate, other content a conflict.
    for (const _ of statement.credits(INSERT_CHUNK));
    if (known.digest !== statement.totals().digest) throw new StatementConflict(statementId);
    return { ...received(), alreadyImported: known.alreadyImported, duplicate: true, status: known.status };
  }
  let stored = 0;
  for (const chunk of statement.credits(INSERT_CHUNK)) {
    const reversals = await reversedCredits(tx, statementId, statement.account, chunk);
    const rows = chunk.map((credit) => ({
      statementId,
      account: statement.account,
      entryRef: credit.entryRef,
      position: credit.position,
      amountMinor: credit.amountMinor,
      currency: credit.currency,
      bookingDate: credit.bookingDate ?? null,
      valueDate: credit.valueDate ?? null,
      remittance: credit.remittance,
      idn: credit.idn ?? null,
      debtorName: credit.debtorName ?? null,
      debtorAccount: credit.debtorAccount ?? null,
      endToEndId: credit.endToEndId ?? null,
      // An entry with a problem (decision 0053), or without one IDN, has nothing to match: to review.
      ...(credit.problem
        ? storedProblem(credit.problem, reversals.get(credit.entryRef))
        : credit.idn
          ? { state: 'received' as const }
          : { state: 'review' as const, reason: credit.idnAmbiguous ? 'ambiguous_idn' : 'no_idn' }),
    })) satisfies (typeof collectStatementCredits.$inferInsert)[];
    // A credit a notification (or an earlier statement) brought already is not imported again.
    const added = await tx
      .insert(collectStatementCredits)
      .values(rows)
      .onConflictDoNothing({ target: [collectStatementCredits.account, collectStatementCredits.entryRef] })
      .returning({ id: collectStatementCredits.id });
    stored += added.length;
  }
  const { credits, skipped, digest } = statement.totals();
  const alreadyImported = credits - stored;
  await tx
    .update(collectStatements)
    .set({
      digest,
      credits,
      alreadyImported,
      debitsSkipped: skipped.debits,
      notBookedSkipped: skipped.notBooked,
    })
    .where(eq(collectStatements.id, statementId));
  return { ...received(), alreadyImported, duplicate: false, status: 'importing' as const };
}

/** A reversal's earlier credit, found when the statement is stored (reversedCredits). */
interface ReversedCredit {
  creditId: number;
  /** The obligation that credit settled, if it settled one. */
  obligationIdn: string | null;
  detail: string;
}

/**
 * An entry with a problem goes to review with it; a reversal of a credit that settled an obligation
 * is `reversing` instead: the import takes that payment back through the obligation's workflow
 * (decision 0063).
 */
function storedProblem(
  problem: { reason: ReviewReason; detail: string },
  reversed: ReversedCredit | undefined,
) {
  if (problem.reason === 'credit_reversed' && reversed?.obligationIdn) {
    return {
      state: 'reversing' as const,
      reasonDetail: reversed.detail,
      obligationIdn: reversed.obligationIdn,
      reversesCreditId: reversed.creditId,
    };
  }
  return {
    state: 'review' as const,
    reason: problem.reason,
    reasonDetail:
      reversed?.detail ??
      (problem.reason === 'credit_reversed'
        ? `${problem.detail}: no earlier imported credit of this account has its reference (or EndToEndId), amount and currency`
        : problem.detail),
    ...(reversed ? { reversesCreditId: reversed.creditId } : {}),
  };
}

/**
 * The credits the statement's reversals (DBIT with RvslInd) take back, found by the reversed credit's
 * bank reference, else by its EndToEndId, with the same amount and currency on the same account, among
 * the credits imported before this statement (a credit and its reversal in one statement: the
 * reversal waits in review). A credit that settled an obligation is taken back by the import
 * (decision 0063); one that settled nothing leaves the reversal in review.
 */
async function reversedCredits(
  tx: Pick<Database, 'select'>,
  statementId: string,
  account: string,
  credits: readonly StatementCredit[],
): Promise<Map<string, ReversedCredit>> {
  const found = new Map<string, ReversedCredit>();
  for (const credit of credits) {
    if (credit.problem?.reason !== 'credit_reversed') continue;
    const reference = credit.entryRef.slice(REVERSAL_KEY.length);
    const endToEnd =
      credit.endToEndId && credit.endToEndId !== 'NOTPROVIDED'
        ? eq(collectStatementCredits.endToEndId, credit.endToEndId)
        : undefined;
    const [original] = await tx
      .select({
        id: collectStatementCredits.id,
        entryRef: collectStatementCredits.entryRef,
        statementId: collectStatementCredits.statementId,
        obligationIdn: collectStatementCredits.obligationIdn,
        state: collectStatementCredits.state,
        resolution: collectStatementCredits.resolution,
      })
      .from(collectStatementCredits)
      .where(
        and(
          eq(collectStatementCredits.account, account),
          // Earlier chunks of this statement are stored already: a credit in the same statement is not one.
          ne(collectStatementCredits.statementId, statementId),
          or(eq(collectStatementCredits.entryRef, reference), endToEnd),
          eq(collectStatementCredits.amountMinor, credit.amountMinor),
          eq(collectStatementCredits.currency, credit.currency),
          sql`${collectStatementCredits.reason} is distinct from 'credit_reversed'`,
          sql`${collectStatementCredits.reversesCreditId} is null`,
        ),
      )
      .orderBy(asc(collectStatementCredits.id))
      .limit(1);
    if (!original) continue;
    const settled =
      original.state === 'settled' || (original.state === 'resolved' && original.resolution === 'settled');
    found.set(credit.entryRef, {
      creditId: original.id,
      obligationIdn: settled ? original.obligationIdn : null,
      detail: settled
        ? `${credit.problem.detail}: credit ${original.entryRef} of ${original.statementId}, which settled obligation ${original.obligationIdn}`
        : `${credit.problem.detail}: credit ${original.entryRef} of ${original.statementId}, which settled nothing (${original.state})`,
    });
  }
  return found;
}

/** Starts (or finds running) the statement's import; a lost start is repaired by importing it again. */
async function startImport(deps: StatementDeps, received: ReceivedStatement, statement: StatementReading) {
  const { statementId } = received;
  const input: StatementImportInput = { statementId };
  try {
    await deps.temporal.workflow.start('statementImport', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: statementImportWorkflowId(statementId),
      args: [input],
      typedSearchAttributes: [{ key: PlatformService, value: 'collect' }],
      staticSummary: `${statement.kind} ${statement.documentId} of ${statement.account}: ${received.credits} credits`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

// --- settling one credit -------------------------------------------------------------------------

export interface CreditToSettle {
  id: number;
  statementId: string;
  entryRef: string;
  obligationIdn: string;
  kind: ObligationKind;
}

/**
 * Pays the obligation with the credit through the obligation's workflow: `settled`, or why not.
 * Safe to repeat: the workflow takes one payment (its validator refuses a second), and a refusal as
 * paid is recognised as this credit's own earlier payment by the source recorded with PAID.
 */
export async function settleCredit(
  deps: Pick<StatementDeps, 'db' | 'temporal'>,
  credit: CreditToSettle,
): Promise<'settled' | ReviewReason> {
  const codes = statementPaymentCodes(credit.statementId, credit.entryRef);
  let refusal: ReviewReason;
  try {
    await deps.temporal.workflow
      .getHandle(obligationWorkflowId(credit.kind, credit.obligationIdn))
      .executeUpdate(payObligationUpdate, {
        updateId: statementPaymentUpdateId(credit.id),
        args: [
          {
            ...codes,
            source: { channel: 'bank_statement', statementId: credit.statementId, entryRef: credit.entryRef },
          },
        ],
      });
    return 'settled';
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      refusal = reviewReasonOfRefusal(error.cause.type ?? undefined);
    } else if (error instanceof WorkflowNotFoundError) {
      // The workflow has closed (paid, expired): the read model says which.
      refusal = await refusalFromReadModel(deps.db, credit.obligationIdn);
    } else {
      throw error;
    }
  }
  if (refusal !== 'obligation_paid') return refusal;
  // Who paid it: the source recorded with PAID (activities/collect/obligation.ts).
  const [paid] = await deps.db
    .select({ detail: collectObligationEvents.detail })
    .from(collectObligationEvents)
    .where(
      and(eq(collectObligationEvents.idn, credit.obligationIdn), eq(collectObligationEvents.status, 'PAID')),
    )
    .orderBy(desc(collectObligationEvents.id))
    .limit(1);
  const source = paid?.detail.source as SettlementSource | undefined;
  if (source?.channel === 'bank_statement') {
    // This credit's own payment, repeated after a crash before it was recorded; or another credit's.
    const own = source.statementId === credit.statementId && source.entryRef === credit.entryRef;
    return own ? 'settled' : 'duplicate_credit';
  }
  if (source) return 'obligation_paid';
  // PAID is being recorded right now: by another credit of ours, or by another channel.
  const [other] = await deps.db
    .select({ id: collectStatementCredits.id })
    .from(collectStatementCredits)
    .where(
      and(
        eq(collectStatementCredits.obligationIdn, credit.obligationIdn),
        ne(collectStatementCredits.id, credit.id),
        or(
          inArray(collectStatementCredits.state, ['matched', 'settled']),
          and(
            eq(collectStatementCredits.state, 'resolved'),
            eq(collectStatementCredits.resolution, 'settled'),
          ),
        ),
      ),
    )
    .limit(1);
  return other ? 'duplicate_credit' : 'obligation_paid';
}

async function refusalFromReadModel(db: Database, idn: string): Promise<ReviewReason> {
  const [row] = await db
    .select({ status: collectObligations.status })
    .from(collectObligations)
    .where(eq(collectObligations.idn, idn));
  if (row?.status === 'PAID') return 'obligation_paid';
  if (row?.status === 'EXPIRED') return 'obligation_expired';
  return 'obligation_closed';
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

/** How many of the statement's credits were settled and how many are (or were) in review. */
export async function statementSummary(db: Database, statementId: string): Promise<StatementImportSummary> {
  const rows = await db
    .select({ state: collectStatementCredits.state, credits: count() })
    .from(collectStatementCredits)
    .where(eq(collectStatementCredits.statementId, statementId))
    .groupBy(collectStatementCredits.state);
  const of = (...states: string[]) =>
    rows.filter((row) => states.includes(row.state)).reduce((sum, row) => sum + row.credits, 0);
  return {
    statementId,
    credits: of('received', 'matched', 'settled', 'review', 'resolved', 'reversing', 'reversed'),
    settled: of('settled'),
    review: of('review', 'resolved'),
    reversed: of('reversed'),
  };
}

// --- the review list -------------------------------------------------------------------------------

export type ReviewItem = typeof collectStatementCredits.$inferSelect;

/** Credits waiting for an operator, oldest first, after the credit id `after`. */
export async function reviewItems(
  db: Database,
  options: { after?: number; limit: number },
): Promise<ReviewItem[]> {
  return db
    .select()
    .from(collectStatementCredits)
    .where(
      and(
        eq(collectStatementCredits.state, 'review'),
        options.after !== undefined ? sql`${collectStatementCredits.id} > ${options.after}` : undefined,
      ),
    )
    .orderBy(asc(collectStatementCredits.id))
    .limit(options.limit);
}

/** An operator's resolution of a review item was refused: `code` is the API's error code. */
export class ReviewResolutionRefused extends Error {
  constructor(
    readonly code: 'review_item_not_found' | 'not_in_review' | 'obligation_not_found' | ReviewReason,
    message: string,
  ) {
    super(message);
    this.name = 'ReviewResolutionRefused';
  }
}

export type ReviewResolution =
  | { action: 'settle'; idn: string; note?: string | undefined }
  | { action: 'dismiss'; note: string };

/**
 * Resolves a credit in review: `settle` pays the obligation `idn` with it (the operator read who paid
 * what; the same rules as matching: open, bank-payable kind, exact amount and currency), `dismiss`
 * closes it with a note (refunded to the payer, booked elsewhere). Repeating a settle is safe.
 */
export async function resolveReviewItem(
  deps: Pick<StatementDeps, 'db' | 'temporal'>,
  creditId: number,
  resolution: ReviewResolution,
): Promise<ReviewItem> {
  const { db } = deps;
  const [credit] = await db
    .select()
    .from(collectStatementCredits)
    .where(eq(collectStatementCredits.id, creditId));
  if (!credit) throw new ReviewResolutionRefused('review_item_not_found', `No review item ${creditId}`);
  if (credit.state !== 'review') {
    throw new ReviewResolutionRefused(
      'not_in_review',
      `Credit ${creditId} is ${credit.state}, not in review`,
    );
  }
  if (resolution.action === 'settle' && credit.reason === 'credit_reversed') {
    throw new ReviewResolutionRefused(
      'credit_reversed',
      `Credit ${creditId} is the bank taking back an earlier credit: it settles nothing (dismiss it)`,
    );
  }
  if (resolution.action === 'settle') {
    const [obligation] = await db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.idn, resolution.idn));
    if (!obligation)
      throw new ReviewResolutionRefused('obligation_not_found', `No obligation ${resolution.idn}`);
    const refusal: ReviewReason | undefined = !statementSettledKinds.includes(obligation.kind)
      ? 'wrong_kind'
      : obligation.currency !== credit.currency
        ? 'currency_differs'
        : obligation.amountMinor !== credit.amountMinor
          ? 'amount_differs'
          : undefined;
    const outcome =
      refusal ??
      (await settleCredit(deps, {
        id: credit.id,
        statementId: credit.statementId,
        entryRef: credit.entryRef,
        obligationIdn: obligation.idn,
        kind: obligation.kind,
      }));
    if (outcome !== 'settled')
      throw new ReviewResolutionRefused(outcome, reviewReasonsText(outcome, resolution.idn));
  }
  const [resolved] = await db
    .update(collectStatementCredits)
    .set({
      state: 'resolved',
      resolution: resolution.action === 'settle' ? 'settled' : 'dismissed',
      resolutionNote: resolution.note ?? null,
      resolvedAt: new Date(),
      ...(resolution.action === 'settle' ? { obligationIdn: resolution.idn, settledAt: new Date() } : {}),
    })
    .where(and(eq(collectStatementCredits.id, creditId), eq(collectStatementCredits.state, 'review')))
    .returning();
  if (!resolved)
    throw new ReviewResolutionRefused('not_in_review', `Credit ${creditId} was resolved meanwhile`);
  return resolved;
}

const reviewReasonsText = (reason: ReviewReason, idn: string) =>
  `Obligation ${idn}: ${reviewReasons[reason]}`;
