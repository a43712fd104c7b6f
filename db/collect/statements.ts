import { and, asc, count, eq, ne, or, sql } from 'drizzle-orm';
import {
  type BankStatement,
  REVERSAL_KEY,
  type StatementCredit,
  type StatementReading,
  statementIdOf,
} from '../../domain/collect/statement.ts';
import type { ReviewReason, StatementImportSummary } from '../../domain/collect/statement-matching.ts';
import type { Database } from '../client.ts';
import { collectStatementCredits, collectStatements } from '../schema/collect-statements.ts';

/**
 * Bank statements' read model (decision 0031): a camt document's statements stored with their credits
 * in one transaction (the operator's import, application/collect/statements.ts), the credits waiting
 * for review and how an import stands. The `statement-import-<id>` workflow's activities
 * (activities/collect/statements.ts) match and settle the stored credits.
 */

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
 * Stores each statement of a document and its credits (once: by the statement's identity and by each
 * credit's bank reference), in one transaction: a statement found in conflict (its digest is known once
 * its last entry is read) or an error stores nothing of the document. The credits are read and
 * inserted a chunk at a time (openStatementDocument), never all in memory.
 */
export function storeStatements(
  db: Database,
  statements: readonly StatementReading[],
  document: { origin: string; fileName?: string | undefined },
): Promise<ReceivedStatement[]> {
  return db.transaction(async (tx) => {
    const stored: ReceivedStatement[] = [];
    for (const statement of statements) stored.push(await storeStatement(tx, statement, document));
    return stored;
  });
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
