import { createHash } from 'node:crypto';
import type { Schedule } from './schedule.ts';

/**
 * The system documents of a loan (the spec's "Loan document (system)", keyed by docTypeId), generated
 * from the loan and its accepted offer, and signed by the customer with a code sent by SMS. Design
 * (the spec shows neither the documents nor their rules): docs/decisions/0040-loan-documents-sms.md.
 * Pure: the API reads the facts, this file writes the text and its hash.
 */

export const systemDocumentTypes = [
  { docTypeId: 'pre-contract-information', name: 'Pre-contract information' },
  { docTypeId: 'loan-agreement', name: 'Loan agreement' },
] as const;
export type DocTypeId = (typeof systemDocumentTypes)[number]['docTypeId'];
export const docTypeIds = systemDocumentTypes.map((type) => type.docTypeId) as [DocTypeId, ...DocTypeId[]];

/** The loan as its documents state it: the accepted offer and its schedule from the day of acceptance. */
export interface LoanDocumentFacts {
  loanId: string;
  customerId: string;
  offerId: string;
  /** The product's Name and the promo code applied for, if any. */
  productName: string;
  promoCode: string | null;
  /** The day the offer was accepted (YYYY-MM-DD): the schedule starts then. */
  acceptedOn: string;
  schedule: Schedule;
}

export interface SystemDocument {
  docTypeId: DocTypeId;
  name: string;
  /** Plain text, the same for the same facts: what the signature is given on. */
  content: string;
  /** `sha256:<hex>` of `content`: a signature binds to it, so changed terms need a new signature. */
  contentHash: string;
}

/** The customer's decision on one document, as recorded (lending_loan_document_decisions). */
export type DocumentDecision = 'signed' | 'declined';

export const contentHashOf = (content: string) =>
  `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;

function terms(facts: LoanDocumentFacts): string[] {
  const { schedule } = facts;
  return [
    `Loan: ${facts.loanId} (offer ${facts.offerId})`,
    `Borrower: customer ${facts.customerId}`,
    `Credit product: ${facts.productName}${facts.promoCode ? ` (promo code ${facts.promoCode})` : ''}`,
    `Amount: ${schedule.amount} ${schedule.currency}`,
    `Term: ${schedule.term} monthly instalments from ${schedule.startDate}`,
    `Annual interest rate: ${schedule.annualInterestRate} % (${schedule.amortisation.replace('_', ' ')})`,
    `Annual percentage rate (APR): ${schedule.apr} %`,
    `Total interest: ${schedule.totals.interest} ${schedule.currency}`,
    `Total fees: ${schedule.totals.fees} ${schedule.currency}`,
    `Total payable: ${schedule.totals.payable} ${schedule.currency}`,
  ];
}

const bodies: Record<DocTypeId, (facts: LoanDocumentFacts) => string[]> = {
  'pre-contract-information': (facts) => [
    'PRE-CONTRACT INFORMATION',
    '',
    ...terms(facts),
    `First instalment due: ${facts.schedule.instalments[0]?.dueDate ?? '-'}`,
    `Last instalment due: ${facts.schedule.instalments.at(-1)?.dueDate ?? '-'}`,
    '',
    'You may decline this loan before it is approved; signing this information does not bind you to it.',
  ],
  'loan-agreement': (facts) => [
    'LOAN AGREEMENT',
    '',
    ...terms(facts),
    '',
    'Repayment schedule (number, due date, principal, interest, fee, total, remaining balance):',
    ...facts.schedule.instalments.map((instalment) =>
      [
        instalment.number,
        instalment.dueDate,
        instalment.principal,
        instalment.interest,
        instalment.fee,
        instalment.total,
        instalment.remainingBalance,
      ].join(' | '),
    ),
    '',
    'The borrower signs this agreement with the code sent by SMS to the phone number on record.',
  ],
};

/** The loan's system documents, in the order a customer reads them. */
export function systemDocumentsOf(facts: LoanDocumentFacts): SystemDocument[] {
  return systemDocumentTypes.map(({ docTypeId, name }) => {
    const content = [`${name} of loan ${facts.loanId}`, '', ...bodies[docTypeId](facts), ''].join('\n');
    return { docTypeId, name, content, contentHash: contentHashOf(content) };
  });
}

/** The SMS carrying a signing code (the code is in it and nowhere else the platform writes in clear). */
export const signingCodeMessage = (documentName: string, loanId: string, code: string, ttlMinutes: number) =>
  `${code} is your code to sign the ${documentName} of loan ${loanId}. It expires in ${ttlMinutes} min. Never share it.`;

/** What a signing code's digest is bound to: the tenant, loan, document and the content it signs. */
export const signingCodeBinding = (
  code: { tenantId: string; loanId: string },
  document: { docTypeId: DocTypeId; contentHash: string },
) => `${code.tenantId}/${code.loanId}/${document.docTypeId}/${document.contentHash}`;

/** Why a presented signing code is refused (the API answers each with its own code). */
export type SigningCodeRefusal = 'not_sent' | 'wrong' | 'expired' | 'exhausted' | 'used';
