import { eq, inArray } from 'drizzle-orm';
import { messagingAccounts, messagingPriceLists } from '../../db/schema/messaging.ts';
import { type PriceListRow, parsePriceList } from '../../domain/messaging/price-lists.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The operator's SMS price lists (decision 0056): uploaded as CSV through the admin API or
 * `npm run admin -- messaging:price-list`, one per account and a default; read by the rates use case.
 */

/** The default list's scope; account ids start with `acc_`, so no account is called that. */
export const DEFAULT_PRICE_LIST = 'default';

/** Refused uploads above this size (about 100 000 rows), before parsing. */
export const PRICE_LIST_MAX_CHARS = 4_000_000;

export interface StoredPriceList {
  scope: string;
  rows: number;
  uploadedAt: string;
}

/**
 * Replaces the price list of `scope` (an account id or `default`) with the CSV `text`. 400 naming
 * every bad row and column (`line.<n>.<column>`, the header being line 1) and nothing stored; 404 for
 * an account that does not exist.
 */
export async function uploadPriceList(
  deps: Pick<UseCaseDeps, 'db'>,
  { scope, text }: { scope: string; text: string },
): Promise<StoredPriceList> {
  if (text.length > PRICE_LIST_MAX_CHARS) {
    throw new Refusal(
      413,
      'price_list_too_large',
      `A price list has at most ${PRICE_LIST_MAX_CHARS} characters`,
    );
  }
  if (scope !== DEFAULT_PRICE_LIST) {
    const [account] = await deps.db
      .select({ id: messagingAccounts.id })
      .from(messagingAccounts)
      .where(eq(messagingAccounts.id, scope));
    if (!account) throw Refusal.notFound(`Messaging account ${scope}`);
  }
  const parsed = parsePriceList(text);
  if (!parsed.ok) {
    throw new Refusal(
      400,
      'price_list_invalid',
      `The price list has ${parsed.problems.length} problem(s); nothing was stored`,
      parsed.problems.map(({ line, column, message }) => ({
        field: `line.${line}.${column}`,
        message: `line ${line}, ${column}: ${message}`,
      })),
    );
  }
  const uploadedAt = new Date();
  await deps.db
    .insert(messagingPriceLists)
    .values({ scope, rows: parsed.rows, uploadedAt })
    .onConflictDoUpdate({ target: messagingPriceLists.scope, set: { rows: parsed.rows, uploadedAt } });
  return { scope, rows: parsed.rows.length, uploadedAt: uploadedAt.toISOString() };
}

/** The list that prices an account's messages: its own, else the default; null when neither exists. */
export async function priceListOf(
  deps: Pick<UseCaseDeps, 'db'>,
  accountId: string,
): Promise<{ scope: 'account' | 'default'; rows: PriceListRow[] } | null> {
  const lists = await deps.db
    .select({ scope: messagingPriceLists.scope, rows: messagingPriceLists.rows })
    .from(messagingPriceLists)
    .where(inArray(messagingPriceLists.scope, [accountId, DEFAULT_PRICE_LIST]));
  const own = lists.find((list) => list.scope === accountId);
  if (own) return { scope: 'account', rows: own.rows };
  const fallback = lists.find((list) => list.scope === DEFAULT_PRICE_LIST);
  return fallback ? { scope: 'default', rows: fallback.rows } : null;
}
