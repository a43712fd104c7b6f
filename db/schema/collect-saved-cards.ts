import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { collectMerchants, collectObligations } from './collect.ts';

/**
 * Cards saved with the payment-collection gateway (decision 0045): one per card-page payment or
 * verification sent with SAVECARD=1 and approved. The merchant knows the card by its `ctk_` token only,
 * which is kept sealed and found by a keyed digest (credentials/collect/card-tokens.ts); the acquirer's
 * token is kept encrypted (AES-256-GCM with COLLECT_SECRET_KEY, additional data
 * `saved-card:<CARD_TOKEN>`, activities/collect/saved-cards.ts) and never leaves the gateway. A forgotten card
 * (GET /card/forget.cgi) keeps its row, with `deletedAt`, and can no longer be charged.
 */
export const collectSavedCards = pgTable(
  'collect_saved_cards',
  {
    /**
     * `scd_` + 24 hex characters: the saved card's own id (rows of release 0.1.0 had their token here
     * until the worker's start-up conversion; credentials/collect/card-tokens.ts).
     */
    id: text('id').primaryKey(),
    /**
     * The CARD_TOKEN the merchant charges (GET /card/charge.cgi), `ctk_` + 24 hex characters: only its
     * keyed digest (HMAC-SHA-256, a key derived from COLLECT_SECRET_KEY) to find the card by, and the
     * token sealed (`v1.…`, bound to the id) to hand it to the merchant again.
     */
    tokenDigest: text('token_digest'),
    tokenSealed: text('token_sealed'),
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
    uniqueIndex('collect_saved_cards_token_digest_idx').on(table.tokenDigest),
    index('collect_saved_cards_merchant_idx').on(table.merchantMin),
  ],
);
