import { and, desc, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
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
import { calculateLoan } from './credit-product-records.ts';
import type { LoanDocumentView } from './document-schemas.ts';
import { invalidStatus, type LoanRow } from './loan-records.ts';

/**
 * The system documents of a loan (decision 0040): generated from the loan and its accepted offer
 * (domain/lending/loan-documents.ts) with the customer's decisions on them. They move to
 * application/lending/ with the credit products' calculation (calculateLoan) they are built from.
 */

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
