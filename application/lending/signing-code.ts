import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { signingCodeMatches } from '../../credentials/lending/signing-codes.ts';
import type { Database } from '../../db/client.ts';
import { lendingCustomers } from '../../db/schema/lending.ts';
import {
  lendingLoanDocumentDecisions,
  lendingSigningCodeSends,
  lendingSigningCodes,
} from '../../db/schema/lending-documents.ts';
import {
  type DocTypeId,
  type SystemDocument,
  signingCodeBinding,
} from '../../domain/lending/loan-documents.ts';
import { SMS_NOT_SENT, signingCodeWorkflowId } from '../../domain/lending/sibling-processes.ts';
import { isSmsRecipient, SMS_RECIPIENT_RULE } from '../../domain/phone-numbers.ts';
import { LoanId, OwnerId, PlatformService, TenantId } from '../../domain/search-attributes.ts';
import type { lendingSigningCode } from '../../workflows/lending/signing-code.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { type FieldError, Refusal } from '../shared/refusal.ts';
import type { LoanRow } from './loan/view.ts';

/**
 * The codes that sign a loan's system documents (decision 0040): AcceptLoanOffer sends the first of each
 * document and ResendSmsCode a new one, by SMS through the messaging gateway, from an activity of a
 * signing-code workflow (decision 0047); SignDocument uses
 * the latest one; DeclineDocument records a decline. A code is kept only as a keyed digest; no answer,
 * log line or workflow history carries it.
 */

export interface SigningCodeSentView {
  docTypeId: DocTypeId;
  /** The customer's phone, masked. */
  sentTo: string;
  expiresAt: string;
  /** Wrong codes this code survives. */
  attempts: number;
  /** ResendSmsCode's limit per loan and clock hour, what is left of it, and when it starts again. */
  sendsPerHour: number;
  sendsLeft: number;
  sendsResetAt: string;
}

const HOUR_MS = 3_600_000;

/**
 * Counts one code send for the loan in the current clock hour, atomically (parallel requests cannot
 * exceed the limit): the sends counted, or a 429 `sms_code_limit_reached` with Retry-After.
 */
async function countCodeSend(deps: Pick<UseCaseDeps, 'db' | 'config'>, loan: LoanRow) {
  const limit = deps.config.LENDING_SIGNING_CODE_SENDS_PER_HOUR;
  const now = Date.now();
  const windowStart = new Date(now - (now % HOUR_MS));
  const resetsAt = new Date(windowStart.getTime() + HOUR_MS);
  const [counted] = await deps.db
    .insert(lendingSigningCodeSends)
    .values({ tenantId: loan.tenantId, loanId: loan.loanId, windowStart, sends: 1 })
    .onConflictDoUpdate({
      target: [
        lendingSigningCodeSends.tenantId,
        lendingSigningCodeSends.loanId,
        lendingSigningCodeSends.windowStart,
      ],
      set: { sends: sql`${lendingSigningCodeSends.sends} + 1` },
      setWhere: lt(lendingSigningCodeSends.sends, limit),
    })
    .returning({ sends: lendingSigningCodeSends.sends });
  if (!counted) {
    throw Refusal.tooManyRequests(
      'sms_code_limit_reached',
      `At most ${limit} codes per loan per hour: the next one can be sent at ${resetsAt.toISOString()}`,
      resetsAt.getTime() - now,
    );
  }
  const giveBack = () =>
    deps.db
      .update(lendingSigningCodeSends)
      .set({ sends: sql`${lendingSigningCodeSends.sends} - 1` })
      .where(
        and(
          eq(lendingSigningCodeSends.tenantId, loan.tenantId),
          eq(lendingSigningCodeSends.loanId, loan.loanId),
          eq(lendingSigningCodeSends.windowStart, windowStart),
        ),
      );
  return { limit, left: limit - counted.sends, resetsAt, giveBack };
}

/** `+3598****111`: enough for the customer to recognise the number, not to learn it. */
const maskedPhone = (phone: string) =>
  phone.length <= 7 ? phone : `${phone.slice(0, 5)}${'*'.repeat(phone.length - 8)}${phone.slice(-3)}`;

async function customerPhone(db: Database, loan: LoanRow): Promise<string | undefined> {
  const [customer] = await db
    .select({ details: lendingCustomers.details })
    .from(lendingCustomers)
    .where(and(eq(lendingCustomers.id, loan.customerId), eq(lendingCustomers.tenantId, loan.tenantId)))
    .limit(1);
  const phone = customer?.details.phone;
  return typeof phone === 'string' && phone ? phone : undefined;
}

const notConfigured = () =>
  new Refusal(
    503,
    'messaging_not_configured',
    'SMS codes cannot be sent: LENDING_MESSAGING_TOKEN is not set',
  );
const phoneMissing = () =>
  Refusal.conflict(
    'customer_phone_missing',
    'the customer has no phone number to send the code to (Customer/Details)',
  );

/** What to correct when the customer's phone is why no code can be sent: the `phone` field, named. */
const phoneField = (phone: string, why: string): FieldError => ({
  field: 'phone',
  message: `the customer's phone ${maskedPhone(phone)} ${why}: correct it with Customer/Details, then ask for a code with ResendSmsCode`,
});

/** The refusal a failed send is answered with, or undefined for a failure that is not a refusal. */
function sendRefusal(error: unknown, phone?: string): Refusal | undefined {
  let cause: unknown = error;
  while (cause instanceof WorkflowFailedError || cause instanceof ActivityFailure) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== SMS_NOT_SENT) return undefined;
  const { code, field } = (cause.details?.[0] ?? {}) as { code?: string; field?: string };
  if (code === 'messaging_not_configured') return notConfigured();
  if (code === 'customer_phone_missing') return phoneMissing();
  // The gateway refused the number itself: name the field the customer can correct.
  const fields =
    field === 'phone' && phone ? [phoneField(phone, 'was refused by the messaging gateway')] : undefined;
  return new Refusal(
    502,
    'sms_not_sent',
    `the SMS with the code could not be sent: ${cause.message}`,
    fields,
  );
}

/** Starts the signing-code workflow and waits until the gateway accepted the SMS (or refused it). */
async function runSigningCodeWorkflow(
  deps: UseCaseDeps,
  loan: LoanRow,
  document: SystemDocument,
  apiBaseUrl: string,
): Promise<{ expiresAt: string }> {
  const { config } = deps;
  return deps.temporal.workflow.execute<typeof lendingSigningCode>('lendingSigningCode', {
    workflowId: signingCodeWorkflowId(loan.tenantId, loan.loanId, document.docTypeId, randomUUID()),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [
      {
        tenantId: loan.tenantId,
        loanId: loan.loanId,
        customerId: loan.customerId,
        docTypeId: document.docTypeId,
        documentName: document.name,
        contentHash: document.contentHash,
        messagingUrl: (config.LENDING_MESSAGING_URL ?? `${apiBaseUrl}/messaging`).replace(/\/+$/, ''),
      },
    ],
    typedSearchAttributes: [
      { key: PlatformService, value: 'lending' },
      { key: TenantId, value: loan.tenantId },
      { key: LoanId, value: loan.loanId },
      { key: OwnerId, value: loan.customerId },
    ],
    staticSummary: `Signing code for the ${document.name} of loan ${loan.loanId}`,
  });
}

/**
 * Sends a new code for the document to the customer's phone and answers once the messaging gateway has
 * accepted it (then every earlier code of the document is dead). When the gateway refuses, the new code
 * is forgotten and the previous one stays as it was: 502 `sms_not_sent`.
 */
export async function sendSigningCode(
  deps: UseCaseDeps,
  loan: LoanRow,
  document: SystemDocument,
  caller: { apiBaseUrl: string },
): Promise<SigningCodeSentView> {
  const { config } = deps;
  if (!config.LENDING_MESSAGING_TOKEN) throw notConfigured();
  const phone = await customerPhone(deps.db, loan);
  if (!phone) throw phoneMissing();
  const sends = await countCodeSend(deps, loan);
  let sent: { expiresAt: string };
  try {
    sent = await runSigningCodeWorkflow(deps, loan, document, caller.apiBaseUrl);
  } catch (error) {
    const refusal = sendRefusal(error, phone);
    // Not sent (the gateway refused): the send does not count against the limit.
    if (refusal) await sends.giveBack();
    throw refusal ?? error;
  }
  return {
    docTypeId: document.docTypeId,
    sentTo: maskedPhone(phone),
    expiresAt: sent.expiresAt,
    attempts: config.LENDING_SIGNING_CODE_ATTEMPTS,
    sendsPerHour: sends.limit,
    sendsLeft: sends.left,
    sendsResetAt: sends.resetsAt.toISOString(),
  };
}

/**
 * The first code of each document, sent when the offer is accepted (issue 21): best effort, and not
 * counted against LENDING_SIGNING_CODE_SENDS_PER_HOUR. The acceptance stands whatever happens here; a
 * code not sent (no token, no phone, the gateway refused, the API stopped in between) is logged, and the
 * customer asks for it with ResendSmsCode. Answers the documents whose code the gateway accepted.
 */
export async function sendFirstSigningCodes(
  deps: UseCaseDeps,
  loan: LoanRow,
  documents: SystemDocument[],
  apiBaseUrl: string,
): Promise<DocTypeId[]> {
  const { config, logger } = deps;
  const skipped = (reason: string) => {
    logger.warn({ loanId: loan.loanId, reason }, 'first signing codes not sent at acceptance');
    return [];
  };
  if (documents.length === 0) return [];
  if (!config.LENDING_MESSAGING_TOKEN) return skipped('messaging_not_configured');
  if (!(await customerPhone(deps.db, loan))) return skipped('customer_phone_missing');
  const sent = await Promise.allSettled(
    documents.map((document) => runSigningCodeWorkflow(deps, loan, document, apiBaseUrl)),
  );
  return documents.flatMap((document, index) => {
    const outcome = sent[index]!;
    if (outcome.status === 'fulfilled') return [document.docTypeId];
    const reason = sendRefusal(outcome.reason)?.code ?? 'failed';
    logger.warn(
      { loanId: loan.loanId, docTypeId: document.docTypeId, reason },
      'first signing code not sent',
    );
    return [];
  });
}

/** The last code sent for a document: the only one that counts (a newer code kills the older ones). */
async function latestCode(db: Database, loan: LoanRow, docTypeId: DocTypeId) {
  const [code] = await db
    .select()
    .from(lendingSigningCodes)
    .where(
      and(
        eq(lendingSigningCodes.tenantId, loan.tenantId),
        eq(lendingSigningCodes.loanId, loan.loanId),
        eq(lendingSigningCodes.docTypeId, docTypeId),
      ),
    )
    .orderBy(desc(lendingSigningCodes.id))
    .limit(1);
  return code;
}

const codeRefused = (code: string, message: string) =>
  new Refusal(400, code, message, [{ field: 'code', message }]);

/**
 * Signs the document with the code: the latest code sent for it, unexpired, unused, with attempts left.
 * Every presented code uses up an attempt before it is compared (constant time), so parallel guesses
 * cannot exceed the limit. The right code is used up and the signature recorded in ONE transaction:
 * a crash leaves both or neither, and a second use finds the code used (the signature's key makes a
 * retried insert a no-op). Answers when the signature was recorded; undefined when the document was
 * signed on this content before (the insert a no-op).
 */
export async function signWithCode(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  loan: LoanRow,
  document: SystemDocument,
  code: string,
  userId: string,
): Promise<Date | undefined> {
  const { db, config } = deps;
  const max = config.LENDING_SIGNING_CODE_ATTEMPTS;
  const latest = await latestCode(db, loan, document.docTypeId);
  if (!latest) {
    // When the phone is why no code went out, say so: asking again would not help until it is corrected.
    const phone = await customerPhone(db, loan);
    const fields =
      phone === undefined
        ? [{ field: 'phone', message: 'the customer has no phone number: add it with Customer/Details' }]
        : isSmsRecipient(phone)
          ? undefined
          : [phoneField(phone, `is ${SMS_RECIPIENT_RULE}; the messaging gateway does not send to it`)];
    throw new Refusal(
      409,
      'signing_code_not_sent',
      'no code was sent for this document: ask for one with ResendSmsCode',
      fields,
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
  if (!counted) return signWithCode(deps, loan, document, code, userId);
  if (!signingCodeMatches(config, signingCodeBinding(loan, document), code, latest.codeDigest)) {
    const left = max - counted.attempts;
    throw codeRefused(
      'invalid_signing_code',
      left > 0
        ? `wrong code: ${left} attempt${left === 1 ? '' : 's'} left`
        : 'wrong code: no attempts left, ask for a new one with ResendSmsCode',
    );
  }
  return db.transaction(async (tx) => {
    const [used] = await tx
      .update(lendingSigningCodes)
      .set({ usedAt: now })
      .where(and(eq(lendingSigningCodes.id, latest.id), isNull(lendingSigningCodes.usedAt)))
      .returning({ id: lendingSigningCodes.id });
    if (!used) throw codeRefused('signing_code_used', 'this code was used already');
    const [signed] = await tx
      .insert(lendingLoanDocumentDecisions)
      .values({
        tenantId: loan.tenantId,
        loanId: loan.loanId,
        docTypeId: document.docTypeId,
        contentHash: document.contentHash,
        decision: 'signed',
        signingCodeId: latest.id,
        userId,
        at: now,
      })
      .onConflictDoNothing()
      .returning({ at: lendingLoanDocumentDecisions.at });
    return signed?.at;
  });
}

/** Records the customer's decline of the document (once; the loan is then cancelled by the caller). */
export async function recordDecline(db: Database, loan: LoanRow, document: SystemDocument, userId: string) {
  await db
    .insert(lendingLoanDocumentDecisions)
    .values({
      tenantId: loan.tenantId,
      loanId: loan.loanId,
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
