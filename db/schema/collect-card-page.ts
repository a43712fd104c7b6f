import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { collectObligations } from './collect.ts';

/**
 * One rendering of the hosted card page (POST / PAGE=credit_paydirect). Its form carries a random
 * token; only the token's SHA-256 is kept. The token is consumed by the first pay or cancel that is
 * acted on, so a page cannot be posted from elsewhere (CSRF) or submitted twice (replay).
 */
export const collectCardPages = pgTable(
  'collect_card_pages',
  {
    tokenHash: text('token_hash').primaryKey(),
    idn: text('idn')
      .notNull()
      .references(() => collectObligations.idn),
    urlOk: text('url_ok'),
    urlCancel: text('url_cancel'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The form must be submitted before this time (COLLECT_CARD_PAGE_TTL, at most the obligation's expiry). */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /**
     * What the customer did with the page: `paid` (or held), `declined`, `cancelled`, or `challenge`
     * (sent to the card issuer's 3-D Secure page; decided on return, GET /card/return).
     */
    outcome: text('outcome', { enum: ['paid', 'declined', 'cancelled', 'challenge'] }),
    /** The acquirer's authorisation of the card submitted on this page (the 3-D Secure return finds it by it). */
    authorisationId: text('authorisation_id'),
  },
  (table) => [
    index('collect_card_pages_idn_idx').on(table.idn),
    index('collect_card_pages_authorisation_idx').on(table.authorisationId),
  ],
);
