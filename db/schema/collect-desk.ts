import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { deskOfficeKinds, deskOperationKinds, deskOperationStates } from '../../domain/collect/desk.ts';

/**
 * Cash desks (offices and ATMs) of the payment-collection gateway (decision 0030): their operators,
 * the operators' sessions, and every operation a desk did, each with its receipt.
 */

/**
 * A person at an office counter, or an ATM, created by the platform operator. The password is kept
 * only as a scrypt hash (credentials/collect/desk-operators.ts); the sandbox demo operator has none
 * and cannot log in.
 */
export const collectDeskOperators = pgTable('collect_desk_operators', {
  id: text('id').primaryKey(),
  login: text('login').notNull().unique(),
  name: text('name').notNull(),
  /** The office or ATM: 6 digits, also the AID of billing TIDs and the BCODE of its payments. */
  officeId: text('office_id').notNull(),
  officeKind: text('office_kind', { enum: deskOfficeKinds }).notNull(),
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url); null: no password login (the sandbox demo desk). */
  passwordHash: text('password_hash'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
});

/**
 * A logged-in operator: a random token (bearer for the JSON API, HttpOnly cookie for the page) of
 * which only the SHA-256 is kept.
 */
export const collectDeskSessions = pgTable(
  'collect_desk_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => collectDeskOperators.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [index('collect_desk_sessions_operator_idx').on(table.operatorId)],
);

/**
 * Every payment and payout a desk did or tried, with its operator. The id is the receipt's sequence
 * number; (operator, idempotency key) makes a repeated request answer the same receipt.
 */
export const collectDeskOperations = pgTable(
  'collect_desk_operations',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => collectDeskOperators.id),
    officeId: text('office_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 of what was asked (kind, IDN, identity presented): a reused key must ask the same. */
    requestDigest: text('request_digest').notNull(),
    kind: text('kind', { enum: deskOperationKinds }).notNull(),
    idn: text('idn').notNull(),
    state: text('state', { enum: deskOperationStates }).notNull(),
    /** What was paid or paid out, once completed (minor units). */
    amountMinor: bigint('amount_minor', { mode: 'number' }),
    currency: text('currency'),
    /** The answer of a completed or refused operation, replayed as it was. */
    result: jsonb('result').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('collect_desk_operations_idempotency_idx').on(table.operatorId, table.idempotencyKey),
    index('collect_desk_operations_idn_idx').on(table.idn),
    index('collect_desk_operations_operator_idx').on(table.operatorId, table.id),
  ],
);
