import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { RegulatoryReportType } from '../../domain/openbanking/payment-orders.ts';
import {
  PAYMENT_KINDS,
  PAYMENT_SCA_METHODS,
  PAYMENT_STATES,
  PAYMENT_STATUSES,
  TRANSACTION_STATUSES,
} from '../../domain/openbanking/payments.ts';
import { obAccounts, obAgents, obBanks, obHooks, obUsers } from './openbanking.ts';

/**
 * Read model of single payments (and of the entries of bulk payments: `bulkId` set). One row per payment
 * code; written by the API when the payment is created and by the payment workflow
 * (`ob-payment-<code>`) as it moves. States and statuses: domain/openbanking/payments.ts.
 */
export const obPayments = pgTable(
  'ob_payments',
  {
    /** The payment code (`pay_…`): the business id, the workflow id's suffix, the API's `code`. */
    code: text('code').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    kind: text('kind', { enum: PAYMENT_KINDS }).notNull(),
    /** The added account paid from (kinds iban, budget); null for direct and budget_no_iban. */
    ibanId: text('iban_id').references(() => obAccounts.id),
    debtorIban: text('debtor_iban').notNull(),
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    creditorIban: text('creditor_iban').notNull(),
    creditorName: text('creditor_name').notNull(),
    /** Minor units (cents). */
    amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    remittanceInformation: text('remittance_information'),
    /** Budget payments: the spec's constants, and the rest of the budget details. */
    regulatoryReportType: text('regulatory_report_type').$type<RegulatoryReportType>(),
    paymentCategory: text('payment_category'),
    budgetDetails: jsonb('budget_details').$type<Record<string, string>>(),
    hookHash: text('hook_hash').references(() => obHooks.hookHash),
    /** The client application in the callback path `/redirect/{app}/state/{state}`. */
    app: text('app').notNull().default('web'),
    /**
     * SHA-256 (hex) of the payment's callback `state` (a credential: only its digest is stored); null for
     * bulk entries, whose SCA is the bulk's.
     */
    stateDigest: text('state_digest'),
    /** The spec status: WAITING, CONFIRMED, FAILED. */
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    /** The gateway's finer state. */
    state: text('state', { enum: PAYMENT_STATES }).notNull(),
    statusReason: text('status_reason'),
    scaMethod: text('sca_method', { enum: PAYMENT_SCA_METHODS }),
    scaRedirectUrl: text('sca_redirect_url'),
    /** What the bank tells the user about its SCA (where the code went; "confirm in the app"). */
    scaMessage: text('sca_message'),
    /** The bank's id of the payment and of its authorisation, and its last transactionStatus. */
    bankPaymentId: text('bank_payment_id'),
    bankAuthorisationId: text('bank_authorisation_id'),
    bankTransactionStatus: text('bank_transaction_status', { enum: TRANSACTION_STATUSES }),
    /** The PSU's User-Agent given with the payment's requests (forwarded to the bank). */
    psuUserAgent: text('psu_user_agent'),
    psuIpAddress: text('psu_ip_address'),
    /** Set for an entry of a bulk payment (ob_bulk_payments.id). */
    bulkId: text('bulk_id'),
    /** The entry's position in its bulk, from 0 (the bulk's batches are ranges of it). */
    bulkSeq: integer('bulk_seq'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Every change of status or state moves it (the last-updated search sorts by it). */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('ob_payments_state_digest_idx').on(table.stateDigest),
    index('ob_payments_user_idx').on(table.userId, table.createdAt),
    index('ob_payments_agent_updated_idx').on(table.agentId, table.updatedAt),
    index('ob_payments_hook_idx').on(table.hookHash, table.createdAt),
    uniqueIndex('ob_payments_bulk_idx').on(table.bulkId, table.bulkSeq),
    index('ob_payments_bank_created_idx').on(table.bankHash, table.createdAt),
  ],
);

export type PaymentRow = typeof obPayments.$inferSelect;
