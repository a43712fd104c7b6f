import { z } from '@hono/zod-openapi';
import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import type { Context } from 'hono';
import { calculateLoan } from '../../application/lending/credit-products.ts';
import { readCustomer } from '../../application/lending/customers.ts';
import { invalidStatus, type LoanRow } from '../../application/lending/loans.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { SmsNotSent, sendSms } from '../../connectors/lending/messaging.ts';
import {
  newSigningCode,
  signingCodeDigest,
  signingCodeMatches,
} from '../../credentials/lending/signing-codes.ts';
import type { Database } from '../../db/client.ts';
import { lendingLoanDocumentDecisions, lendingSigningCodes } from '../../db/schema/lending-documents.ts';
import { lendingLoanStatusHistory } from '../../db/schema/lending-loans.ts';
import {
  type DocTypeId,
  type DocumentDecision,
  docTypeIds,
  type SystemDocument,
  signingCodeMessage,
  systemDocumentsOf,
} from '../../domain/lending/loan-documents.ts';
import { type LoanOperation, stepOf } from '../../domain/lending/loan-lifecycle.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { publicBaseUrl } from '../shared/public-url.ts';
import type { LendingEnv } from './context.ts';
import { loanErrorResponses } from './loan-schemas.ts';

/**
 * The system documents of a loan for the API (decision 0040): generated from the loan and its accepted
 * offer (domain/lending/loan-documents.ts), the customer's decisions on them, and the SMS codes that sign
 * them. The code goes out through the messaging gateway's public HTTP API and is kept only as a keyed
 * digest; no answer and no log line carries it.
 */

// --- what the API answers --------------------------------------------------------------------------

export const docTypeIdSchema = z.enum(docTypeIds).openapi({
  description: 'A system document type: `pre-contract-information` or `loan-agreement`',
  example: 'loan-agreement',
});

export const loanDocumentSchema = z
  .object({
    docTypeId: docTypeIdSchema,
    name: z.string().openapi({ example: 'Loan agreement' }),
    status: z.enum(['unsigned', 'signed', 'declined']),
    contentHash: z.string().openapi({ description: 'SHA-256 of `content`, what a signature is given on' }),
    decidedAt: z.string().nullable().openapi({ description: 'When it was signed or declined' }),
    signable: z
      .boolean()
      .openapi({ description: 'SignDocument, ResendSmsCode and DeclineDocument apply now' }),
  })
  .openapi('LoanDocument');
export const loanDocumentWithContentSchema = loanDocumentSchema
  .extend({ content: z.string().openapi({ description: 'The document, plain text' }) })
  .openapi('LoanDocumentWithContent');
export type LoanDocumentView = z.infer<typeof loanDocumentSchema>;

/** A document operation's query: the document type (all three name it). */
export const docTypeQuery = z.object({ docTypeId: docTypeIdSchema });

export const documentErrorResponses = {
  ...loanErrorResponses,
  409: {
    description:
      '`invalid_loan_status` (documents are signed in Waiting for approval), `documents_not_available` (no accepted ' +
      'offer), `document_already_signed`, `document_declined`, `signing_code_not_sent`, `customer_phone_missing`',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  502: {
    description:
      '`sms_not_sent`: the messaging gateway did not accept the SMS (the previous code stays valid)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  503: {
    description: '`messaging_not_configured`: LENDING_MESSAGING_TOKEN is not set',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

// --- the documents ----------------------------------------------------------------------------------

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

// --- signing codes ----------------------------------------------------------------------------------

const boundTo = (row: LoanRow, document: SystemDocument) =>
  `${row.tenantId}/${row.loanId}/${document.docTypeId}/${document.contentHash}`;

/** The last code sent for a document: the only one that counts (a newer code kills the older ones). */
async function latestCode(db: Database, row: LoanRow, docTypeId: DocTypeId) {
  const [code] = await db
    .select()
    .from(lendingSigningCodes)
    .where(
      and(
        eq(lendingSigningCodes.tenantId, row.tenantId),
        eq(lendingSigningCodes.loanId, row.loanId),
        eq(lendingSigningCodes.docTypeId, docTypeId),
      ),
    )
    .orderBy(desc(lendingSigningCodes.id))
    .limit(1);
  return code;
}

/** `+3598****111`: enough for the customer to recognise the number, not to learn it. */
const maskedPhone = (phone: string) =>
  phone.length <= 7 ? phone : `${phone.slice(0, 5)}${'*'.repeat(phone.length - 8)}${phone.slice(-3)}`;

export const signingCodeSentSchema = z
  .object({
    docTypeId: docTypeIdSchema,
    sentTo: z.string().openapi({ description: 'The customer’s phone, masked', example: '+3598*****111' }),
    expiresAt: z.string(),
    attempts: z.number().int().openapi({ description: 'Wrong codes this code survives', example: 5 }),
  })
  .openapi('SigningCodeSent');

/**
 * Sends a new code for the document to the customer's phone through the messaging gateway; once the
 * gateway accepted it, every earlier code of the document is dead (only the latest counts). When the
 * gateway refuses, the new code is forgotten and the previous one stays as it was.
 */
export async function sendSigningCode(
  c: Context<LendingEnv>,
  row: LoanRow,
  document: SystemDocument,
): Promise<z.infer<typeof signingCodeSentSchema>> {
  const { db, config } = c.get('deps');
  const token = config.LENDING_MESSAGING_TOKEN;
  if (!token) {
    throw new Refusal(
      503,
      'messaging_not_configured',
      'SMS codes cannot be sent: LENDING_MESSAGING_TOKEN is not set',
    );
  }
  const phone = (await readCustomer(db, row.tenantId, row.customerId))?.details.phone;
  if (!phone) {
    throw Refusal.conflict(
      'customer_phone_missing',
      'the customer has no phone number to send the code to (Customer/Details)',
    );
  }
  const code = newSigningCode();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + config.LENDING_SIGNING_CODE_TTL);
  const [issued] = await db
    .insert(lendingSigningCodes)
    .values({
      tenantId: row.tenantId,
      loanId: row.loanId,
      docTypeId: document.docTypeId,
      contentHash: document.contentHash,
      codeDigest: signingCodeDigest(config, boundTo(row, document), code),
      createdAt: now,
      expiresAt,
    })
    .returning({ id: lendingSigningCodes.id });
  const id = issued!.id;
  try {
    const sent = await sendSms(
      {
        // publicBaseUrl reads only the deps and the socket, which every lending context has.
        baseUrl: config.LENDING_MESSAGING_URL ?? `${publicBaseUrl(c)}/messaging`,
        token,
        timeoutMs: config.LENDING_MESSAGING_REQUEST_TIMEOUT,
      },
      {
        to: phone,
        from: config.LENDING_MESSAGING_SENDER,
        message: signingCodeMessage(
          document.name,
          row.loanId,
          code,
          Math.round(config.LENDING_SIGNING_CODE_TTL / 60_000),
        ),
      },
      `lending-signing-code-${row.tenantId}-${id}`,
    );
    await db.update(lendingSigningCodes).set({ messageId: sent.id }).where(eq(lendingSigningCodes.id, id));
  } catch (error) {
    // Not sent: this code never existed for the customer, so it must not kill the previous one.
    await db.delete(lendingSigningCodes).where(eq(lendingSigningCodes.id, id));
    if (error instanceof SmsNotSent) {
      c.get('deps').logger.warn(
        { loanId: row.loanId, docTypeId: document.docTypeId, httpStatus: error.httpStatus, code: error.code },
        'signing code SMS not accepted by the messaging gateway',
      );
      throw new Refusal(502, 'sms_not_sent', `the SMS with the code could not be sent: ${error.message}`);
    }
    throw error;
  }
  return {
    docTypeId: document.docTypeId,
    sentTo: maskedPhone(phone),
    expiresAt: expiresAt.toISOString(),
    attempts: config.LENDING_SIGNING_CODE_ATTEMPTS,
  };
}

const codeRefused = (code: string, message: string) =>
  new Refusal(400, code, message, [{ field: 'code', message }]);

/**
 * Signs the document with the code: the latest code sent for it, unexpired, unused, with attempts left.
 * Every presented code uses up an attempt before it is compared (constant time), so parallel guesses
 * cannot exceed the limit. The right code is used up and the signature recorded in ONE transaction:
 * a crash leaves both or neither, and a second use finds the code used (the signature's key makes a
 * retried insert a no-op).
 */
export async function signWithCode(
  c: Context<LendingEnv>,
  row: LoanRow,
  document: SystemDocument,
  code: string,
  userId: string,
): Promise<void> {
  const { db, config } = c.get('deps');
  const max = config.LENDING_SIGNING_CODE_ATTEMPTS;
  const latest = await latestCode(db, row, document.docTypeId);
  if (!latest) {
    throw Refusal.conflict(
      'signing_code_not_sent',
      'no code was sent for this document: ask for one with ResendSmsCode',
    );
  }
  if (latest.usedAt) throw codeRefused('signing_code_used', 'this code was used already');
  const now = new Date();
  if (latest.expiresAt <= now || latest.contentHash !== document.contentHash) {
    throw codeRefused('signing_code_expired', 'the code has expired: ask for a new one with ResendSmsCode');
  }
  const exhausted = () =>
    codeRefused(
      'signing_code_exhausted',
      `the code was tried ${max} times and is no longer valid: ask for a new one with ResendSmsCode`,
    );
  if (latest.attempts >= max) throw exhausted();
  const [counted] = await db
    .update(lendingSigningCodes)
    .set({ attempts: latest.attempts + 1 })
    .where(
      and(
        eq(lendingSigningCodes.id, latest.id),
        eq(lendingSigningCodes.attempts, latest.attempts),
        lt(lendingSigningCodes.attempts, max),
        isNull(lendingSigningCodes.usedAt),
      ),
    )
    .returning({ attempts: lendingSigningCodes.attempts });
  // Another attempt counted in between (or used the code): decide again on what is recorded now.
  if (!counted) return signWithCode(c, row, document, code, userId);
  if (!signingCodeMatches(config, boundTo(row, document), code, latest.codeDigest)) {
    const left = max - counted.attempts;
    throw codeRefused(
      'invalid_signing_code',
      left > 0
        ? `wrong code: ${left} attempt${left === 1 ? '' : 's'} left`
        : 'wrong code: no attempts left, ask for a new one with ResendSmsCode',
    );
  }
  await db.transaction(async (tx) => {
    const [used] = await tx
      .update(lendingSigningCodes)
      .set({ usedAt: now })
      .where(and(eq(lendingSigningCodes.id, latest.id), isNull(lendingSigningCodes.usedAt)))
      .returning({ id: lendingSigningCodes.id });
    if (!used) throw codeRefused('signing_code_used', 'this code was used already');
    await tx
      .insert(lendingLoanDocumentDecisions)
      .values({
        tenantId: row.tenantId,
        loanId: row.loanId,
        docTypeId: document.docTypeId,
        contentHash: document.contentHash,
        decision: 'signed',
        signingCodeId: latest.id,
        userId,
        at: now,
      })
      .onConflictDoNothing();
  });
}

/** Records the customer's decline of the document (once; the loan is then cancelled by the caller). */
export async function recordDecline(db: Database, row: LoanRow, document: SystemDocument, userId: string) {
  await db
    .insert(lendingLoanDocumentDecisions)
    .values({
      tenantId: row.tenantId,
      loanId: row.loanId,
      docTypeId: document.docTypeId,
      contentHash: document.contentHash,
      decision: 'declined',
      userId,
      at: new Date(),
    })
    .onConflictDoNothing();
}

/** The reason a declined document cancels the loan with (a system reason, not in the dictionary). */
export const DOCUMENT_DECLINED_REASON = 'document_declined';
