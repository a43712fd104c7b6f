import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { qualifiedColumns } from '../../../db/qualified.ts';
import { lendingLoanDocumentDecisions } from '../../../db/schema/lending-documents.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../../db/schema/lending-loans.ts';
import type { CreditProduct } from '../../../domain/lending/credit-products.ts';
import {
  type DocTypeId,
  type DocumentDecision,
  type SystemDocument,
  systemDocumentsOf,
} from '../../../domain/lending/loan-documents.ts';
import { type LoanOperation, type LoanStatus, stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import { cancelUpdate, documentSignedSignal, loanWorkflowId } from '../../../domain/lending/loan-process.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { calculateLoan } from '../credit-products.ts';
import {
  DOCUMENT_DECLINED_REASON,
  recordDecline,
  sendFirstSigningCodes,
  sendSigningCode,
  signWithCode,
} from '../signing-code.ts';

import { invalidStatus, type LoanCaller, loanOf, parsedJson } from './record.ts';
import { type LoanRow, type LoanView, viewOfLoan } from './view.ts';
import { moveLoan } from './workflow.ts';
/**
 * The system documents of a loan (decision 0040): generated from the loan and its accepted offer
 * (domain/lending/loan-documents.ts) with the customer's decisions on them.
 */

/** A system document as the customer sees it. */
export interface LoanDocumentView {
  docTypeId: DocTypeId;
  name: string;
  status: DocumentDecision | 'unsigned';
  contentHash: string;
  decidedAt: string | null;
  signable: boolean;
}

export interface LoanDocuments {
  documents: SystemDocument[];
  decisions: Map<DocTypeId, { decision: DocumentDecision; at: Date }>;
  /** The loan is where SignDocument, ResendSmsCode and DeclineDocument apply. */
  signable: boolean;
  /** The credit product the documents were made with (by the loan's promo code, else its product's name). */
  product?: CreditProduct | undefined;
}

/** A status history as the loan's view holds it (oldest first). */
type StatusHistory = Pick<LoanView['statusHistory'][number], 'status' | 'at'>[];

/** The acceptance is the loan's latest entry into Waiting for approval. */
const ACCEPTED: LoanStatus = 'Waiting for approval';

const loanColumns = qualifiedColumns(lendingLoans);
const historyColumns = qualifiedColumns(lendingLoanStatusHistory);
const decisionColumns = qualifiedColumns(lendingLoanDocumentDecisions);

type DecisionRecord = { docTypeId: DocTypeId; contentHash: string; decision: DocumentDecision; at: Date };

/**
 * The moment of the loan's acceptance (ISO) and the customer's decisions on its documents, in one
 * statement; the acceptance is taken from `history` when the caller has read it already.
 */
async function acceptanceAndDecisions(
  db: Database,
  row: LoanRow,
  history: StatusHistory | undefined,
): Promise<{ acceptedAt: string | undefined; decisions: DecisionRecord[] }> {
  const [found] = await db
    .select({
      acceptedAt: history
        ? sql<null>`null`
        : sql<string | null>`(select ${historyColumns.at} from ${lendingLoanStatusHistory}
            where ${historyColumns.tenantId} = ${loanColumns.tenantId}
              and ${historyColumns.loanId} = ${loanColumns.loanId}
              and ${historyColumns.status} = ${ACCEPTED}
            order by ${historyColumns.version} desc limit 1)`.mapWith((value) =>
            value === null ? null : new Date(value).toISOString(),
          ),
      decisions: sql<DecisionRecord[]>`coalesce((select json_agg(json_build_object(
          'docTypeId', ${decisionColumns.docTypeId},
          'contentHash', ${decisionColumns.contentHash},
          'decision', ${decisionColumns.decision}, 'at', ${decisionColumns.at}))
        from ${lendingLoanDocumentDecisions}
        where ${decisionColumns.tenantId} = ${loanColumns.tenantId}
          and ${decisionColumns.loanId} = ${loanColumns.loanId}), '[]'::json)`.mapWith((value) =>
        parsedJson<(Omit<DecisionRecord, 'at'> & { at: string })[]>(value).map((decided) => ({
          ...decided,
          at: new Date(decided.at),
        })),
      ),
    })
    .from(lendingLoans)
    .where(and(eq(lendingLoans.tenantId, row.tenantId), eq(lendingLoans.loanId, row.loanId)))
    .limit(1);
  const acceptedAt = history
    ? history.findLast((entry) => entry.status === ACCEPTED)?.at
    : (found?.acceptedAt ?? undefined);
  return { acceptedAt, decisions: found?.decisions ?? [] };
}

/**
 * The loan's documents: none before an offer is accepted; then the two documents of the accepted offer
 * with its schedule starting on the day of acceptance, and the decisions given on exactly that content.
 * `history`: the loan's status history when the caller has read it (the acceptance is not read again).
 */
export async function documentsOfLoan(
  db: Database,
  row: LoanRow,
  history?: StatusHistory,
): Promise<LoanDocuments> {
  const signable = stepOf('signDocument', row.status, {
    offerAccepted: row.acceptedOfferId !== null,
  }).allowed;
  if (row.acceptedOfferId === null) return { documents: [], decisions: new Map(), signable };
  const { acceptedAt, decisions: rows } = await acceptanceAndDecisions(db, row, history);
  const acceptedOn = (acceptedAt ?? row.updatedAt.toISOString()).slice(0, 10);
  const { product, schedule } = await calculateLoan(
    { db },
    {
      tenantId: row.tenantId,
      terms: {
        productName: row.promoCode ?? row.productName,
        amount: row.amount,
        term: row.term,
        startDate: acceptedOn,
      },
    },
  );
  const documents = systemDocumentsOf({
    loanId: row.loanId,
    customerId: row.customerId,
    offerId: row.acceptedOfferId,
    productName: row.productName,
    promoCode: row.promoCode,
    acceptedOn,
    schedule,
  });
  const decisions = new Map<DocTypeId, { decision: DocumentDecision; at: Date }>();
  for (const document of documents) {
    const decided = rows.find(
      (candidate) =>
        candidate.docTypeId === document.docTypeId && candidate.contentHash === document.contentHash,
    );
    if (decided) decisions.set(document.docTypeId, { decision: decided.decision, at: decided.at });
  }
  return { documents, decisions, signable, product };
}

export function documentView(loan: LoanDocuments, document: SystemDocument): LoanDocumentView {
  const decided = loan.decisions.get(document.docTypeId);
  return {
    docTypeId: document.docTypeId,
    name: document.name,
    status: decided?.decision ?? 'unsigned',
    contentHash: document.contentHash,
    decidedAt: decided?.at.toISOString() ?? null,
    signable: loan.signable && decided === undefined,
  };
}

/** The documents an accepted offer still waits for (Approve names them). */
export const unsignedDocuments = (loan: LoanDocuments) =>
  loan.documents.filter((document) => loan.decisions.get(document.docTypeId)?.decision !== 'signed');

/**
 * One document a customer acts on: the loan must be where the operation's row allows it (409 naming the
 * status, or `documents_not_available` without an accepted offer) and the document undecided. SignDocument
 * lets a signed one through (presenting its code again is `signing_code_used`), DeclineDocument a declined
 * one (a decline whose cancel did not happen is finished by asking again).
 */
export async function documentToDecide(
  db: Database,
  row: LoanRow,
  operation: Extract<LoanOperation, 'signDocument' | 'resendSmsCode' | 'declineDocument'>,
  docTypeId: DocTypeId,
): Promise<{ loan: LoanDocuments; document: SystemDocument }> {
  const step = stepOf(operation, row.status, { offerAccepted: row.acceptedOfferId !== null });
  if (!step.allowed) {
    if (step.type === 'invalid_loan_status') throw invalidStatus(operation, row.status);
    throw Refusal.conflict(step.type, step.message);
  }
  const loan = await documentsOfLoan(db, row);
  const document = loan.documents.find((candidate) => candidate.docTypeId === docTypeId);
  if (!document) throw Refusal.notFound('Document');
  const decided = loan.decisions.get(docTypeId);
  if (decided?.decision === 'signed' && operation !== 'signDocument')
    throw Refusal.conflict('document_already_signed', `the ${document.name} is signed already`);
  if (decided?.decision === 'declined' && operation !== 'declineDocument')
    throw Refusal.conflict('document_declined', `the ${document.name} was declined`);
  return { loan, document };
}

/** A customer acting on their own loan's documents. */
export type DocumentCaller = LoanCaller & { customerId: string; userId: string };

/** A request about the documents of one loan of the customer. */
interface DocumentRequest {
  caller: DocumentCaller;
  loanId: string;
}

/** `GET …/Documents`: the loan's system documents as the customer sees them. */
export async function listLoanDocuments(deps: Pick<UseCaseDeps, 'db'>, { caller, loanId }: DocumentRequest) {
  const loan = await documentsOfLoan(deps.db, await loanOf(deps, caller, loanId));
  return loan.documents.map((document) => documentView(loan, document));
}

/** `GET …/Documents/{docTypeId}`: one document with its content (404 for a type the loan does not have). */
export async function getLoanDocument(
  deps: Pick<UseCaseDeps, 'db'>,
  { caller, loanId, docTypeId }: DocumentRequest & { docTypeId: string },
): Promise<LoanDocumentView & { content: string }> {
  const loan = await documentsOfLoan(deps.db, await loanOf(deps, caller, loanId));
  const document = loan.documents.find((candidate) => candidate.docTypeId === docTypeId);
  if (!document) throw Refusal.notFound('Document');
  return { ...documentView(loan, document), content: document.content };
}

/** ResendSmsCode: a new code for the document, sent by SMS (the answer never carries it). */
export async function resendSigningCode(
  deps: UseCaseDeps,
  { caller, loanId, docTypeId, apiBaseUrl }: DocumentRequest & { docTypeId: DocTypeId; apiBaseUrl: string },
) {
  const row = await loanOf(deps, caller, loanId);
  const { document } = await documentToDecide(deps.db, row, 'resendSmsCode', docTypeId);
  return sendSigningCode(deps, row, document, { apiBaseUrl });
}

/**
 * AcceptLoanOffer's follow-up: the first code of every document of the accepted offer not decided yet
 * (a signature given on the same text before a Reprocessing still counts), best effort.
 */
export async function sendCodesOfAcceptedOffer(
  deps: UseCaseDeps,
  row: LoanRow,
  apiBaseUrl: string,
  history: StatusHistory,
) {
  const loan = await documentsOfLoan(deps.db, row, history);
  if (!loan.signable) return [];
  const undecided = loan.documents.filter((document) => !loan.decisions.has(document.docTypeId));
  return sendFirstSigningCodes(deps, row, undecided, apiBaseUrl);
}

/**
 * SignDocument: the document signed with the latest code sent for it; answers the document. The loan's
 * workflow is told (a hint: it announces the signature, and catches up on its next change when a crash
 * lost the hint; decision 0088).
 */
export async function signLoanDocument(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'temporal' | 'logger'>,
  { caller, loanId, docTypeId, code }: DocumentRequest & { docTypeId: DocTypeId; code: string },
): Promise<LoanDocumentView> {
  const row = await loanOf(deps, caller, loanId);
  const { loan, document } = await documentToDecide(deps.db, row, 'signDocument', docTypeId);
  const signedAt = await signWithCode(deps, row, document, code, caller.userId);
  // The signature just recorded is the document's decision; one recorded before it is read back.
  if (!signedAt) return documentView(await documentsOfLoan(deps.db, row), document);
  await hintSignature(deps, row);
  const decisions = new Map(loan.decisions).set(docTypeId, { decision: 'signed', at: signedAt });
  return documentView({ ...loan, decisions }, document);
}

/** Tells the loan's workflow a signature was recorded; best effort (the workflow catches up). */
async function hintSignature(deps: Pick<UseCaseDeps, 'temporal' | 'logger'>, row: LoanRow) {
  try {
    await deps.temporal.workflow
      .getHandle(loanWorkflowId(row.tenantId, row.loanId))
      .signal(documentSignedSignal);
  } catch (error) {
    deps.logger.warn(
      { err: error, loanId: row.loanId },
      'signature not announced to the loan: caught up later',
    );
  }
}

/** DeclineDocument: the decline recorded, then the application cancelled through the loan workflow. */
export async function declineLoanDocument(
  deps: UseCaseDeps,
  { caller, loanId, docTypeId }: DocumentRequest & { docTypeId: DocTypeId },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  const { document } = await documentToDecide(deps.db, row, 'declineDocument', docTypeId);
  // Recorded first: a crash before the cancel leaves the decline, and DeclineDocument again finishes it.
  await recordDecline(deps.db, row, document, caller.userId);
  const moved = await moveLoan(deps, row, 'cancel', (loan) =>
    loan.executeUpdate(cancelUpdate, {
      args: [
        {
          by: caller.actor,
          reasonId: DOCUMENT_DECLINED_REASON,
          comments: `the customer declined the ${document.name}`,
        },
      ],
    }),
  );
  return viewOfLoan(moved, 'customer');
}

/** Approve's check: the documents an accepted offer still waits for (and their product). */
export async function unsignedDocumentsOf(deps: Pick<UseCaseDeps, 'db'>, row: LoanRow) {
  const loan = await documentsOfLoan(deps.db, row);
  return { unsigned: unsignedDocuments(loan), product: loan.product };
}
