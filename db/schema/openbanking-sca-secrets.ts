import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The secret fields of one embedded SCA step (a bank user id and password, a one-time code) between the
 * request that gives them and the activity that relays them to the bank (decision 0068): the Temporal
 * Update carries only the row's random id. Sealed (credentials/openbanking/sca-secrets.ts), taken and
 * deleted in one statement by the activity, expired after OPENBANKING_SCA_SECRET_TTL and purged.
 */
export const obScaSecrets = pgTable(
  'ob_sca_secrets',
  {
    /** Random reference, the only thing the workflow sees. */
    id: text('id').primaryKey(),
    /** The process the step belongs to (`consent:<consentId>`, `payment:<code>`): another one cannot take it. */
    subject: text('subject').notNull(),
    /** AES-256-GCM of the step's fields (JSON), bound to id and subject. */
    sealed: text('sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('ob_sca_secrets_expiry_idx').on(table.expiresAt)],
);
