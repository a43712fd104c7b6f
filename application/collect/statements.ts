import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import { settleCredit } from '../../db/collect/statement-settlement.ts';
import {
  type ReceivedStatement,
  type ReviewItem,
  reviewItems,
  StatementConflict,
  statementSummary,
  storeStatements,
} from '../../db/collect/statements.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectStatementCredits, collectStatements } from '../../db/schema/collect-statements.ts';
import { statementImportWorkflowId } from '../../domain/collect/processes.ts';
import {
  openStatementDocument,
  StatementDocumentError,
  type StatementProblemCode,
} from '../../domain/collect/statement.ts';
import {
  type ReviewReason,
  reviewReasons,
  type StatementImportInput,
  statementSettledKinds,
} from '../../domain/collect/statement-matching.ts';
import { PlatformService } from '../../domain/search-attributes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal, type RefusalStatus } from '../shared/refusal.ts';

/**
 * The operator's side of bank statements (docs/collect.md "Bank statements", decision 0031): import a
 * camt.053/054 document, follow its import, work the review list. What the admin API, `npm run admin --
 * collect:statement <file>` and the watched folder do. The `statement-import-<id>` workflow matches and
 * settles the credits stored here (activities/collect/statements.ts).
 */

export type { ReceivedStatement, ReviewItem };

export type ReviewResolution =
  | { action: 'settle'; idn: string; note?: string | undefined }
  | { action: 'dismiss'; note: string };

/** The document's bytes (decoded as its XML declaration says), or its text. */
export interface StatementDocument {
  xml: string | Uint8Array;
  fileName?: string | undefined;
}

/**
 * Reads a camt.053/054 document, stores each statement and its credits (db/collect/statements.ts) and
 * starts the statements' import workflows. Throws StatementDocumentError (the document is refused) or
 * StatementConflict: the operator's own files (the admin command, the watched folder) report them as
 * they are; an upload answers them as refusals (uploadStatement).
 */
export async function importStatement(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'temporal'>,
  document: StatementDocument & { origin: 'upload' | 'folder' | 'admin' },
): Promise<ReceivedStatement[]> {
  const { config } = deps;
  const size =
    typeof document.xml === 'string' ? Buffer.byteLength(document.xml, 'utf8') : document.xml.byteLength;
  if (size > config.COLLECT_STATEMENT_MAX_BYTES) {
    throw new StatementDocumentError(
      'statement_too_large',
      `The document has ${size} bytes; at most ${config.COLLECT_STATEMENT_MAX_BYTES} are imported (COLLECT_STATEMENT_MAX_BYTES)`,
    );
  }
  const received = await storeStatements(deps.db, openStatementDocument(document.xml), document);
  for (const stored of received) {
    if (stored.status === 'importing') await startImport(deps, stored);
  }
  return received;
}

/** Starts (or finds running) the statement's import; a lost start is repaired by importing it again. */
async function startImport(deps: Pick<UseCaseDeps, 'config' | 'temporal'>, received: ReceivedStatement) {
  const { statementId } = received;
  const input: StatementImportInput = { statementId };
  try {
    await deps.temporal.workflow.start('statementImport', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: statementImportWorkflowId(statementId),
      args: [input],
      typedSearchAttributes: [{ key: PlatformService, value: 'collect' }],
      staticSummary: `${received.kind} ${received.documentId} of ${received.account}: ${received.credits} credits`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

const PROBLEM_STATUS: Record<StatementProblemCode, RefusalStatus> = {
  statement_malformed_xml: 400,
  statement_dtd_refused: 400,
  statement_unsupported_encoding: 400,
  statement_unsupported_document: 422,
  statement_invalid: 422,
  statement_too_large: 413,
};

/** Imports an uploaded camt document; a document it refuses is a Refusal naming the problem. */
export async function uploadStatement(
  deps: UseCaseDeps,
  document: StatementDocument,
): Promise<ReceivedStatement[]> {
  try {
    return await importStatement(deps, { ...document, origin: 'upload' });
  } catch (error) {
    if (error instanceof StatementDocumentError) {
      throw new Refusal(PROBLEM_STATUS[error.code], error.code, error.message, [
        { field: error.field, message: error.message },
      ]);
    }
    if (error instanceof StatementConflict) throw Refusal.conflict('statement_conflict', error.message);
    throw error;
  }
}

/** Credits waiting for an operator, oldest first, after the credit id `after`. */
export function statementReviewItems(
  deps: UseCaseDeps,
  options: { after?: number; limit: number },
): Promise<ReviewItem[]> {
  return reviewItems(deps.db, options);
}

/**
 * Resolves a credit in review: `settle` pays the obligation `idn` with it (the operator read who paid
 * what; the same rules as matching: open, bank-payable kind, exact amount and currency), `dismiss`
 * closes it with a note (refunded to the payer, booked elsewhere). Repeating a settle is safe.
 */
export async function resolveStatementReviewItem(
  deps: UseCaseDeps,
  { itemId, resolution }: { itemId: number; resolution: ReviewResolution },
): Promise<ReviewItem> {
  const { db } = deps;
  const [credit] = await db
    .select()
    .from(collectStatementCredits)
    .where(eq(collectStatementCredits.id, itemId));
  if (!credit) throw Refusal.notFound('Review item');
  if (credit.state !== 'review') {
    throw Refusal.conflict('not_in_review', `Credit ${itemId} is ${credit.state}, not in review`);
  }
  if (resolution.action === 'settle' && credit.reason === 'credit_reversed') {
    throw Refusal.conflict(
      'credit_reversed',
      `Credit ${itemId} is the bank taking back an earlier credit: it settles nothing (dismiss it)`,
    );
  }
  if (resolution.action === 'settle') {
    const [obligation] = await db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.idn, resolution.idn));
    if (!obligation) throw Refusal.field('idn', `No obligation ${resolution.idn}`, 404);
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
    if (outcome !== 'settled') {
      throw Refusal.conflict(outcome, `Obligation ${resolution.idn}: ${reviewReasons[outcome]}`);
    }
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
    .where(and(eq(collectStatementCredits.id, itemId), eq(collectStatementCredits.state, 'review')))
    .returning();
  if (!resolved) throw Refusal.conflict('not_in_review', `Credit ${itemId} was resolved meanwhile`);
  return resolved;
}

export interface StatementView {
  statementId: string;
  kind: string;
  messageDefinition: string;
  messageId: string;
  documentId: string;
  account: string;
  origin: string;
  fileName: string | null;
  status: (typeof collectStatements.$inferSelect)['status'];
  credits: number;
  settled: number;
  review: number;
  /** Reversals that took an earlier credit's payment back (decision 0063). */
  reversed: number;
  alreadyImported: number;
  skipped: { debits: number; notBooked: number };
  receivedAt: string;
  importedAt: string | null;
}

/** A bank statement and how its import stands. */
export async function readStatement(deps: UseCaseDeps, { id }: { id: string }): Promise<StatementView> {
  const { db } = deps;
  const [row] = await db.select().from(collectStatements).where(eq(collectStatements.id, id));
  if (!row) throw Refusal.notFound('Statement');
  const summary = await statementSummary(db, id);
  return {
    statementId: row.id,
    kind: row.kind,
    messageDefinition: row.messageDefinition,
    messageId: row.messageId,
    documentId: row.documentId,
    account: row.account,
    origin: row.origin,
    fileName: row.fileName,
    status: row.status,
    credits: summary.credits,
    settled: summary.settled,
    review: summary.review,
    reversed: summary.reversed ?? 0,
    alreadyImported: row.alreadyImported,
    skipped: { debits: row.debitsSkipped, notBooked: row.notBookedSkipped },
    receivedAt: row.receivedAt.toISOString(),
    importedAt: row.importedAt?.toISOString() ?? null,
  };
}
