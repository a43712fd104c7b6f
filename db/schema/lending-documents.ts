import { bigint, bigserial, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { DocTypeId, DocumentDecision } from '../../domain/lending/loan-documents.ts';
import { lendingTenants } from './lending.ts';

/**
 * System loan documents signed by SMS (decision 0040). The documents themselves are generated from the
 * loan (domain/lending/loan-documents.ts); what is stored is the codes sent and the customer's
 * decisions, written by the API.
 */

/**
 * Signing codes sent by SMS, one row per code. Only the latest code of a loan's document counts: a
 * newer one (ResendSmsCode) makes every earlier one dead. The code itself is never stored: its keyed
 * digest is.
 */
export const lendingSigningCodes = pgTable(
  'lending_signing_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    loanId: text('loan_id').notNull(),
    docTypeId: text('doc_type_id').$type<DocTypeId>().notNull(),
    /** The document's content hash the code was sent for. */
    contentHash: text('content_hash').notNull(),
    /** HMAC-SHA-256 of the code, keyed from LENDING_DATA_KEY and bound to this loan and document. */
    codeDigest: text('code_digest').notNull(),
    /** The message id the messaging gateway answered (none until it accepted the SMS). */
    messageId: text('message_id'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [index('lending_signing_codes_document_idx').on(table.tenantId, table.loanId, table.docTypeId)],
);

/**
 * ResendSmsCode's limit: the codes sent for a loan (all its documents) in one clock hour (`windowStart`),
 * counted before the SMS is sent and given back when the gateway refuses it.
 */
export const lendingSigningCodeSends = pgTable(
  'lending_signing_code_sends',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    loanId: text('loan_id').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    sends: integer('sends').notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.loanId, table.windowStart] })],
);

/**
 * The customer's decision on a document version: signed (with the code that signed it) or declined.
 * One per content hash: a retried or concurrent signature is recorded once, in the same transaction
 * that uses up the code.
 */
export const lendingLoanDocumentDecisions = pgTable(
  'lending_loan_document_decisions',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    loanId: text('loan_id').notNull(),
    docTypeId: text('doc_type_id').$type<DocTypeId>().notNull(),
    contentHash: text('content_hash').notNull(),
    decision: text('decision').$type<DocumentDecision>().notNull(),
    /** The signing code that signed it; none for a decline. */
    signingCodeId: bigint('signing_code_id', { mode: 'number' }),
    /** The customer's user who decided. */
    userId: text('user_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /**
     * A signature handed to the loan's events (`loan.document_signed`, decision 0088): null from the
     * signature's own write until the loan's workflow has handed its event over. Signatures recorded
     * before this column are marked announced by its migration (no backfill of events).
     */
    announcedAt: timestamp('announced_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.loanId, table.docTypeId, table.contentHash] })],
);
