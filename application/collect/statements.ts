import { eq } from 'drizzle-orm';
import {
  importStatementDocument,
  type ReceivedStatement,
  type ReviewItem,
  type ReviewResolution,
  ReviewResolutionRefused,
  resolveReviewItem,
  reviewItems,
  StatementConflict,
  statementSummary,
} from '../../activities/collect/statements.ts';
import { collectStatements } from '../../db/schema/collect-statements.ts';
import { StatementDocumentError, type StatementProblemCode } from '../../domain/collect/statement.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal, type RefusalStatus } from '../shared/refusal.ts';

/**
 * The operator's side of bank statements (docs/collect.md "Bank statements", decision 0031): import a
 * camt.053/054 document, follow its import, work the review list. What the admin API, `npm run admin --
 * collect:statement <file>` and the watched folder do.
 */

export type { ReceivedStatement, ReviewItem, ReviewResolution };

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
  document: { xml: string | Uint8Array; fileName?: string | undefined },
): Promise<ReceivedStatement[]> {
  try {
    return await importStatementDocument(deps, { ...document, origin: 'upload' });
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
  options: Parameters<typeof reviewItems>[1],
): Promise<ReviewItem[]> {
  return reviewItems(deps.db, options);
}

/** Settles an obligation with a credit in review, or dismisses it. */
export async function resolveStatementReviewItem(
  deps: UseCaseDeps,
  itemId: number,
  resolution: ReviewResolution,
): Promise<ReviewItem> {
  try {
    return await resolveReviewItem(deps, itemId, resolution);
  } catch (error) {
    if (!(error instanceof ReviewResolutionRefused)) throw error;
    if (error.code === 'review_item_not_found') throw Refusal.notFound('Review item');
    if (error.code === 'obligation_not_found') throw Refusal.field('idn', error.message, 404);
    throw Refusal.conflict(error.code, error.message);
  }
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
export async function readStatement(deps: UseCaseDeps, id: string): Promise<StatementView> {
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
