import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { camtKinds } from '../../domain/collect/statement.ts';
import { reviewReasonCodes, statementCreditStates } from '../../domain/collect/statement-matching.ts';

/**
 * Bank statements (camt.053 / camt.054) imported by the payment-collection gateway, one row per
 * statement of an account (decision 0031). The id derives from the identity (kind, account, Stmt/Ntfctn
 * Id), so importing the same statement again finds this row.
 */
export const collectStatements = pgTable(
  'collect_statements',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: camtKinds }).notNull(),
    messageDefinition: text('message_definition').notNull(),
    messageId: text('message_id').notNull(),
    documentId: text('document_id').notNull(),
    account: text('account').notNull(),
    /** SHA-256 of what was read: the same identity with other content is refused (409). */
    digest: text('digest').notNull(),
    /** Where it came from: `upload`, `folder` or `admin`, and the file's name when there was one. */
    origin: text('origin').notNull(),
    fileName: text('file_name'),
    /** `importing` until every credit is settled or in review, then `imported`. */
    status: text('status', { enum: ['importing', 'imported'] }).notNull(),
    credits: integer('credits').notNull(),
    /** Credits of this statement already imported from another (a camt.054 before the camt.053). */
    alreadyImported: integer('already_imported').notNull(),
    debitsSkipped: integer('debits_skipped').notNull(),
    notBookedSkipped: integer('not_booked_skipped').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    importedAt: timestamp('imported_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('collect_statements_identity_idx').on(table.kind, table.account, table.documentId)],
);

/**
 * Booked credits of the statements: each is imported once per account (by the bank's reference), then
 * settles one obligation through its workflow or waits in the review list.
 */
export const collectStatementCredits = pgTable(
  'collect_statement_credits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    statementId: text('statement_id')
      .notNull()
      .references(() => collectStatements.id),
    account: text('account').notNull(),
    entryRef: text('entry_ref').notNull(),
    position: integer('position').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    bookingDate: text('booking_date'),
    valueDate: text('value_date'),
    remittance: text('remittance').notNull(),
    /** The IDN read from the remittance information. */
    idn: text('idn'),
    debtorName: text('debtor_name'),
    debtorAccount: text('debtor_account'),
    endToEndId: text('end_to_end_id'),
    state: text('state', { enum: statementCreditStates }).notNull(),
    /** Why it is in review (kept after it is resolved). */
    reason: text('reason', { enum: reviewReasonCodes }),
    /** What exactly is wrong with an entry judged on its own (`Stmt[1].Ntry[4].Amt: 0`), decision 0053. */
    reasonDetail: text('reason_detail'),
    /** The obligation it settled (or was resolved to); a reversal: the obligation it un-pays. */
    obligationIdn: text('obligation_idn'),
    /** A reversal (RvslInd) of an earlier credit: that credit (decision 0063). */
    reversesCreditId: bigint('reverses_credit_id', { mode: 'number' }),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    /** An operator's resolution of a review item: `settled` (to obligationIdn) or `dismissed`, and why. */
    resolution: text('resolution', { enum: ['settled', 'dismissed'] }),
    resolutionNote: text('resolution_note'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (table) => [
    // A credit is imported once per account, whichever statement or notification carries it.
    uniqueIndex('collect_statement_credits_entry_idx').on(table.account, table.entryRef),
    index('collect_statement_credits_statement_idx').on(table.statementId, table.state, table.position),
    index('collect_statement_credits_state_idx').on(table.state, table.id),
    index('collect_statement_credits_idn_idx').on(table.idn),
    index('collect_statement_credits_obligation_idx').on(table.obligationIdn),
  ],
);
