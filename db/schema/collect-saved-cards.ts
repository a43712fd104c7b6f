import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { collectMerchants, collectObligations } from './collect.ts';

/**
 * Cards saved with the payment-collection gateway (decision 0045): one per card-page payment or
 * verification sent with SAVECARD=1 and approved. The merchant knows the card by its `ctk_` id only;
 * the acquirer's token is kept encrypted (AES-256-GCM with COLLECT_SECRET_KEY, additional data
 * `saved-card:<id>`, activities/collect/saved-cards.ts) and never leaves the gateway. A forgotten card
 * (GET /card/forget.cgi) keeps its row, with `deletedAt`, and can no longer be charged.
 */
export const collectSavedCards = pgTable(
  'collect_saved_cards',
  {
    /** `ctk_` + 24 hex characters: the CARD_TOKEN the merchant charges (GET /card/charge.cgi). */
    id: text('id').primaryKey(),
    merchantMin: text('merchant_min')
      .notNull()
      .references(() => collectMerchants.min),
    /** The obligation whose card page saved it: one card per obligation (the idempotency key). */
    idn: text('idn')
      .notNull()
      .references(() => collectObligations.idn),
    /** Which acquirer holds the card (COLLECT_ACQUIRER_ID). */
    acquirer: text('acquirer').notNull(),
    /** The acquirer's token, `v1.<iv>.<tag>.<data>` (credentials/shared/secret-box.ts). */
    acquirerTokenCiphertext: text('acquirer_token_ciphertext').notNull(),
    /** Upper case: VISA, MASTERCARD, AMEX, ... */
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expiryMonth: integer('expiry_month').notNull(),
    expiryYear: integer('expiry_year').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('collect_saved_cards_idn_idx').on(table.idn),
    index('collect_saved_cards_merchant_idx').on(table.merchantMin),
  ],
);
