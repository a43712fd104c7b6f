import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingCards } from '../../db/schema/lending-payment-options.ts';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';
import { lendingDataKey } from './personal-data.ts';

/**
 * Customers' saved cards (decision 0045): the collection gateway's token of a card (`ctk_…`) is what
 * lending presents to charge it, so it is encrypted at rest (AES-256-GCM under LENDING_DATA_KEY, bound
 * to the card's row), read only by the activity that charges and the API call that forgets it.
 */

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const boundTo = (cardId: string) => `lending_cards.token:${cardId}`;

export const sealCardToken = (config: KeyConfig, cardId: string, token: string) =>
  sealSecret(lendingDataKey(config), boundTo(cardId), token);

export const openCardToken = (config: KeyConfig, cardId: string, sealed: string) =>
  openSecret(lendingDataKey(config), boundTo(cardId), sealed, 'card token');

export interface ChargeableCard {
  cardId: string;
  token: string;
  brand: string | null;
  last4: string | null;
}

/**
 * The customer's active card to charge: `cardId` when given (undefined when it is not the customer's
 * active card), else the default card — the default payment method when it is a card, otherwise the
 * card saved last. Its token stays sealed.
 */
export async function findChargeableCard(
  db: Database,
  tenantId: string,
  customerId: string,
  cardId: string | null,
): Promise<{ cardId: string; tokenSealed: string; brand: string | null; last4: string | null } | undefined> {
  const [row] = await db
    .select()
    .from(lendingCards)
    .where(
      and(
        eq(lendingCards.tenantId, tenantId),
        eq(lendingCards.customerId, customerId),
        eq(lendingCards.status, 'active'),
        isNull(lendingCards.deletedAt),
        cardId ? eq(lendingCards.id, cardId) : undefined,
      ),
    )
    .orderBy(desc(lendingCards.isDefault), desc(lendingCards.activatedAt), desc(lendingCards.id))
    .limit(1);
  if (!row?.tokenSealed) return undefined;
  return { cardId: row.id, tokenSealed: row.tokenSealed, brand: row.brand, last4: row.last4 };
}

/** The card to charge (findChargeableCard) with its token opened. */
export async function chargeableCard(
  db: Database,
  config: KeyConfig,
  tenantId: string,
  customerId: string,
  cardId: string | null,
): Promise<ChargeableCard | undefined> {
  const found = await findChargeableCard(db, tenantId, customerId, cardId);
  if (!found) return undefined;
  const { tokenSealed, ...card } = found;
  return { ...card, token: openCardToken(config, card.cardId, tokenSealed) };
}
