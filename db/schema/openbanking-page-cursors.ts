import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { obAccounts, obUsers } from './openbanking.ts';

/**
 * Cursors of `GET /api/8/paged-transactions/{ibanId}`: the client gets a random cursor as
 * `nextPageUrl`, the bank's next link stays here, bound to the user and account it was read for, until
 * `expires_at` (OPENBANKING_PAGE_CURSOR_TTL). Only the cursor's SHA-256 is stored.
 */
export const obPageCursors = pgTable(
  'ob_page_cursors',
  {
    cursorHash: text('cursor_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    accountId: text('account_id')
      .notNull()
      .references(() => obAccounts.id, { onDelete: 'cascade' }),
    /** The bank's `_links.next`, absolute (never shown to the client). */
    nextUrl: text('next_url').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('ob_page_cursors_user_expiry_idx').on(table.userId, table.expiresAt)],
);
