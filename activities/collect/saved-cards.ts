import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import {
  AcquirerRefusal,
  acquirerFor,
  acquirerIdempotencyKey,
  type CardAcquirer,
} from '../../connectors/collect/acquirer.ts';
import {
  cardTokenDigest,
  cardTokenOf,
  newSavedCardId,
  savedCardOfToken,
  sealCardToken,
} from '../../credentials/collect/card-tokens.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { openSecret, sealSecret } from '../../credentials/shared/secret-box.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { ObligationRefusal } from '../../domain/collect/obligation.ts';
import type { SavedCardView } from '../../domain/collect/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Saved cards (decision 0045): the card page's SAVECARD=1 keeps the acquirer's token of an approved
 * card as a saved card of the merchant, and a `card_charge` obligation authorises it without the
 * cardholder. The acquirer's token is encrypted with COLLECT_SECRET_KEY, bound to the saved card's id,
 * and only these activities ever read it: it is neither answered to anyone nor kept in workflow history.
 */

export interface SavedCardActivityDeps extends ActivityDeps {
  /** The card acquirer; default the configured one (acquirerFor). */
  acquirer?: CardAcquirer;
}

/**
 * The additional data the acquirer token of a saved card is sealed with (a copied ciphertext does not
 * open): its CARD_TOKEN (the card's id in rows of release 0.1.0, where id and token were one).
 */
const tokenBinding = (cardToken: string) => `saved-card:${cardToken}`;

/** The result of charging a saved card's authorisation (no 3-D Secure: approved or declined). */
export type SavedCardAuthorisation =
  | { outcome: 'approved'; acquirer: string; authorisationId: string }
  | { outcome: 'declined'; reason: string };

export const savedCardView = (key: Buffer, row: typeof collectSavedCards.$inferSelect): SavedCardView => ({
  cardToken: cardTokenOf(key, row),
  brand: row.brand,
  last4: row.last4,
  expiryMonth: row.expiryMonth,
  expiryYear: row.expiryYear,
});

export function createSavedCardActivities(deps: SavedCardActivityDeps) {
  const acquirer = deps.acquirer ?? acquirerFor(deps.config);
  const key = () => collectSecretKey(deps.config);
  const refused = (message: string): never => {
    throw ApplicationFailure.nonRetryable(message, ObligationRefusal.acquirerRefused);
  };

  return {
    /**
     * Saves the card the acquirer stored with the obligation's authorisation (`storeCard`): once per
     * obligation (its IDN is unique among saved cards), so a retry answers the card saved first.
     */
    async saveCard(input: {
      idn: string;
      merchantMin: string;
      authorisationId: string;
    }): Promise<SavedCardView> {
      const [saved] = await deps.db
        .select()
        .from(collectSavedCards)
        .where(eq(collectSavedCards.idn, input.idn));
      if (saved) return savedCardView(key(), saved);
      const authorisation = await acquirer.get(input.authorisationId).catch((error: unknown) => {
        if (error instanceof AcquirerRefusal) refused(`the card acquirer refused: ${error.message}`);
        throw error;
      });
      if (authorisation.reference !== input.idn || !authorisation.cardToken || !authorisation.card) {
        return refused('the card acquirer did not store the card with this authorisation');
      }
      const id = newSavedCardId();
      const token = `ctk_${randomBytes(12).toString('hex')}`;
      const { card } = authorisation;
      await deps.db
        .insert(collectSavedCards)
        .values({
          id,
          tokenDigest: cardTokenDigest(key(), token),
          tokenSealed: sealCardToken(key(), id, token),
          merchantMin: input.merchantMin,
          idn: input.idn,
          acquirer: acquirer.id,
          acquirerTokenCiphertext: sealSecret(key(), tokenBinding(token), authorisation.cardToken),
          brand: card.brand.toUpperCase(),
          last4: card.last4,
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
        })
        .onConflictDoNothing({ target: collectSavedCards.idn });
      // Two runs at once: the one inserted first is the saved card.
      const [row] = await deps.db
        .select()
        .from(collectSavedCards)
        .where(eq(collectSavedCards.idn, input.idn));
      if (!row) throw new Error(`saved card of ${input.idn} vanished after insert`);
      return savedCardView(key(), row);
    },

    /**
     * Authorises a `card_charge` obligation's amount on its saved card, merchant-initiated, under the
     * key `<IDN>:authorise` (a retry is the same authorisation). A forgotten card, a card of another
     * acquirer and the acquirer's decline are declines; an unreachable acquirer is retried (thrown).
     */
    async authoriseSavedCard(input: { idn: string }): Promise<SavedCardAuthorisation> {
      const [obligation] = await deps.db
        .select()
        .from(collectObligations)
        .where(eq(collectObligations.idn, input.idn));
      const { savedCardId, cardToken: olderToken } = obligation?.details ?? {};
      if (!obligation || (!savedCardId && !olderToken))
        throw new Error(`${input.idn} is no saved-card charge`);
      const [card] = await deps.db
        .select()
        .from(collectSavedCards)
        .where(
          savedCardId ? eq(collectSavedCards.id, savedCardId) : savedCardOfToken(key(), olderToken ?? ''),
        );
      if (!card || card.merchantMin !== obligation.merchantMin || card.deletedAt) {
        return { outcome: 'declined', reason: 'the saved card was forgotten' };
      }
      if (card.acquirer !== acquirer.id) {
        return { outcome: 'declined', reason: 'the card was saved with another card acquirer' };
      }
      const cardToken = openSecret(
        key(),
        tokenBinding(cardTokenOf(key(), card)),
        card.acquirerTokenCiphertext,
        `saved card ${card.id}`,
      );
      try {
        const authorisation = await acquirer.authorise(
          {
            reference: obligation.idn,
            amountMinor: obligation.amountMinor,
            currency: obligation.currency,
            cardToken,
            merchantInitiated: true,
          },
          acquirerIdempotencyKey(obligation.idn, 'authorise'),
        );
        if (authorisation.status === 'authorised') {
          return { outcome: 'approved', acquirer: acquirer.id, authorisationId: authorisation.id };
        }
        return {
          outcome: 'declined',
          reason:
            authorisation.declineReason ??
            (authorisation.status === 'challenge_required'
              ? 'the issuer asked for the cardholder, who is not present'
              : 'the card was not authorised'),
        };
      } catch (error) {
        if (!(error instanceof AcquirerRefusal)) throw error;
        // The acquirer no longer knows the card: nothing can be charged to it.
        if (error.code === 'unknown_card_token' || error.code === 'not_found') {
          return { outcome: 'declined', reason: 'the card acquirer no longer holds this card' };
        }
        return refused(`the card acquirer refused: ${error.message}`);
      }
    },
  };
}
