import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanDocumentDecisions } from '../../db/schema/lending-documents.ts';
import { lendingLoanStatusHistory } from '../../db/schema/lending-loans.ts';
import {
  type DocTypeId,
  type DocumentDecision,
  type SystemDocument,
  systemDocumentsOf,
} from '../../domain/lending/loan-documents.ts';
import { type LoanOperation, stepOf } from '../../domain/lending/loan-lifecycle.ts';
import { cancelUpdate } from '../../domain/lending/loan-process.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { calculateLoan } from './credit-products.ts';
import {
  invalidStatus,
  type LoanCaller,
  type LoanRow,
  type LoanView,
  loanOf,
  loanView,
  moveLoan,
} from './loans.ts';
import {
  DOCUMENT_DECLINED_REASON,
  recordDecline,
  sendFirstSigningCodes,
  sendSigningCode,
  signWithCode,
} from './signing-codes.ts';

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
}

/**
 * The loan's documents: none before an offer is accepted; then the two documents of the accepted offer
 * with its schedule starting on the day of acceptance, and the decisions given on exactly that content.
 */
export async function documentsOfLoan(db: Database, row: LoanRow): Promise<LoanDocuments> {
  const signable = stepOf('signDocument', row.status, {
    offerAccepted: row.acceptedOfferId !== null,
  }).allowed;
  if (row.acceptedOfferId === null) return { documents: [], decisions: new Map(), signable };
  // The acceptance is the loan's latest entry into Waiting for approval.
  const [accepted] = await db
    .select({ at: lendingLoanStatusHistory.at })
    .from(lendingLoanStatusHistory)
    .where(
      and(
        eq(lendingLoanStatusHistory.tenantId, row.tenantId),
        eq(lendingLoanStatusHistory.loanId, row.loanId),
        eq(lendingLoanStatusHistory.status, 'Waiting for approval'),
      ),
    )
    .orderBy(desc(lendingLoanStatusHistory.version))
    .limit(1);
  const acceptedOn = (accepted?.at ?? row.updatedAt).toISOString().slice(0, 10);
  const { schedule } = await calculateLoan(db, row.tenantId, {
    productName: row.promoCode ?? row.productName,
    amount: row.amount,
    term: row.term,
    startDate: acceptedOn,
  });
  const documents = systemDocumentsOf({
    loanId: row.loanId,
    customerId: row.customerId,
    offerId: row.acceptedOfferId,
    productName: row.productName,
    promoCode: row.promoCode,
    acceptedOn,
    schedule,
  });
  const rows = await db
    .select()
    .from(lendingLoanDocumentDecisions)
    .where(
      and(
        eq(lendingLoanDocumentDecisions.tenantId, row.tenantId),
        eq(lendingLoanDocumentDecisions.loanId, row.loanId),
      ),
    );
  const decisions = new Map<DocTypeId, { decision: DocumentDecision; at: Date }>();
  for (const document of documents) {
    const decided = rows.find(
      (candidate) =>
        candidate.docTypeId === document.docTypeId && candidate.contentHash === document.contentHash,
    );
    if (decided) decisions.set(document.docTypeId, { decision: decided.decision, at: decided.at });
  }
  return { documents, decisions, signable };
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

/** `GET …/Documents`: the loan's system documents as the customer sees them. */
export async function listLoanDocuments(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: DocumentCaller,
  loanId: string,
) {
  const loan = await documentsOfLoan(deps.db, await loanOf(deps, caller, loanId));
  return loan.documents.map((document) => documentView(loan, document));
}

/** `GET …/Documents/{docTypeId}`: one document with its content (404 for a type the loan does not have). */
export async function getLoanDocument(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: DocumentCaller,
  loanId: string,
  docTypeId: string,
): Promise<LoanDocumentView & { content: string }> {
  const loan = await documentsOfLoan(deps.db, await loanOf(deps, caller, loanId));
  const document = loan.documents.find((candidate) => candidate.docTypeId === docTypeId);
  if (!document) throw Refusal.notFound('Document');
  return { ...documentView(loan, document), content: document.content };
}

/** ResendSmsCode: a new code for the document, sent by SMS (the answer never carries it). */
export async function resendSigningCode(
  deps: UseCaseDeps,
  caller: DocumentCaller,
  loanId: string,
  docTypeId: DocTypeId,
  apiBaseUrl: string,
) {
  const row = await loanOf(deps, caller, loanId);
  const { document } = await documentToDecide(deps.db, row, 'resendSmsCode', docTypeId);
  return sendSigningCode(deps, row, document, { apiBaseUrl });
}

/**
 * AcceptLoanOffer's follow-up: the first code of every document of the accepted offer not decided yet
 * (a signature given on the same text before a Reprocessing still counts), best effort.
 */
export async function sendCodesOfAcceptedOffer(deps: UseCaseDeps, row: LoanRow, apiBaseUrl: string) {
  const loan = await documentsOfLoan(deps.db, row);
  if (!loan.signable) return [];
  const undecided = loan.documents.filter((document) => !loan.decisions.has(document.docTypeId));
  return sendFirstSigningCodes(deps, row, undecided, apiBaseUrl);
}

/** SignDocument: the document signed with the latest code sent for it; answers the document. */
export async function signLoanDocument(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  caller: DocumentCaller,
  loanId: string,
  docTypeId: DocTypeId,
  code: string,
): Promise<LoanDocumentView> {
  const row = await loanOf(deps, caller, loanId);
  const { document } = await documentToDecide(deps.db, row, 'signDocument', docTypeId);
  await signWithCode(deps, row, document, code, caller.userId);
  return documentView(await documentsOfLoan(deps.db, row), document);
}

/** DeclineDocument: the decline recorded, then the application cancelled through the loan workflow. */
export async function declineLoanDocument(
  deps: UseCaseDeps,
  caller: DocumentCaller,
  loanId: string,
  docTypeId: DocTypeId,
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
  return loanView(deps.db, moved, 'customer');
}

/** Approve's check: the documents an accepted offer still waits for. */
export async function unsignedDocumentsOf(deps: Pick<UseCaseDeps, 'db'>, row: LoanRow) {
  return unsignedDocuments(await documentsOfLoan(deps.db, row));
}
