import { createHmac, randomBytes } from 'node:crypto';
import { and, eq, isNotNull, isNull, not, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';

/**
 * A saved card's CARD_TOKEN (`ctk_…`, decision 0045) is what a merchant charges the card with, so the
 * gateway keeps it as it keeps merchant secrets (decision 0010): encrypted with COLLECT_SECRET_KEY
 * (`token_sealed`, bound to the saved card's id) and found by a keyed digest (`token_digest`, HMAC-SHA-256
 * under a key derived from COLLECT_SECRET_KEY), never in clear. The notification that hands the token to
 * the merchant keeps it sealed too (bound to the notification's id), and a charge's obligation names the
 * saved card by its id, not by the token. Rows of an older release (the token as the card's id, in the
 * notification and in the charge's details) are converted at worker start by sealClearCardTokens and
 * read meanwhile.
 */

/** A saved card's own id: `scd_` + 24 hex characters. */
export const newSavedCardId = () => `scd_${randomBytes(12).toString('hex')}`;

const digestKey = (key: Buffer) =>
  createHmac('sha256', key).update('collect saved-card token digest').digest();

/** The keyed digest a saved card is found by. */
export const cardTokenDigest = (key: Buffer, token: string) =>
  createHmac('sha256', digestKey(key)).update(token).digest('hex');

/** The saved card's token, sealed to its row. */
export const sealCardToken = (key: Buffer, savedCardId: string, token: string) =>
  sealSecret(key, `saved-card-token:${savedCardId}`, token);

/** A saved card's token: opened, or (a row of an older release) its id. */
export function cardTokenOf(key: Buffer, card: { id: string; tokenSealed: string | null }): string {
  return card.tokenSealed
    ? openSecret(key, `saved-card-token:${card.id}`, card.tokenSealed, `saved card ${card.id}`)
    : card.id;
}

/** The condition that finds the saved card of `token` (by its digest; an older row by its id). */
export const savedCardOfToken = (key: Buffer, token: string): SQL =>
  or(eq(collectSavedCards.tokenDigest, cardTokenDigest(key, token)), eq(collectSavedCards.id, token)) as SQL;

const notificationBinding = (notificationId: string) => `notification-card-token:${notificationId}`;

/** The CARD_TOKEN of a notification, sealed to the notification's row. */
export const sealNotifiedCardToken = (key: Buffer, notificationId: string, token: string) =>
  sealSecret(key, notificationBinding(notificationId), token);

/** A notification's card fields with its token opened (an older row's clear token as it is). */
export function withNotifiedCardToken<Row extends { id: string; cardToken: string | null }>(
  key: Buffer,
  row: Row,
): Row {
  if (!row.cardToken?.startsWith('v1.')) return row;
  const cardToken = openSecret(key, notificationBinding(row.id), row.cardToken, `notification ${row.id}`);
  return { ...row, cardToken };
}

/**
 * Converts what an older release kept in clear: saved cards whose id is their token get a new id, a
 * sealed token and a digest; notifications get their token sealed; charges name the saved card by id.
 * Answers how many rows changed.
 */
export async function sealClearCardTokens(db: Database, key: Buffer): Promise<number> {
  let changed = 0;
  const cards = await db
    .select({ id: collectSavedCards.id })
    .from(collectSavedCards)
    .where(isNull(collectSavedCards.tokenDigest));
  for (const { id: token } of cards) {
    const id = newSavedCardId();
    const rows = await db
      .update(collectSavedCards)
      .set({ id, tokenDigest: cardTokenDigest(key, token), tokenSealed: sealCardToken(key, id, token) })
      .where(and(eq(collectSavedCards.id, token), isNull(collectSavedCards.tokenDigest)))
      .returning({ id: collectSavedCards.id });
    changed += rows.length;
    // Charges registered meanwhile named the card by its old id, the token.
    await db
      .update(collectObligations)
      .set({ details: sql`jsonb_set(${collectObligations.details}, '{savedCardId}', to_jsonb(${id}::text))` })
      .where(sql`${collectObligations.details}->>'savedCardId' = ${token}`);
  }
  const notifications = await db
    .select({ id: collectNotifications.id, cardToken: collectNotifications.cardToken })
    .from(collectNotifications)
    .where(
      and(isNotNull(collectNotifications.cardToken), not(sql`${collectNotifications.cardToken} like 'v1.%'`)),
    );
  for (const row of notifications) {
    if (!row.cardToken) continue;
    await db
      .update(collectNotifications)
      .set({ cardToken: sealNotifiedCardToken(key, row.id, row.cardToken) })
      .where(and(eq(collectNotifications.id, row.id), eq(collectNotifications.cardToken, row.cardToken)));
    changed += 1;
  }
  const charges = await db
    .select({ idn: collectObligations.idn, details: collectObligations.details })
    .from(collectObligations)
    .where(isNotNull(sql`${collectObligations.details}->>'cardToken'`));
  for (const charge of charges) {
    const { cardToken, ...rest } = charge.details;
    const [card] = await db
      .select({ id: collectSavedCards.id })
      .from(collectSavedCards)
      .where(savedCardOfToken(key, cardToken ?? ''));
    await db
      .update(collectObligations)
      .set({ details: card ? { ...rest, savedCardId: card.id } : rest })
      .where(eq(collectObligations.idn, charge.idn));
    changed += 1;
  }
  return changed;
}
