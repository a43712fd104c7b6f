import { ApplicationFailure } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import {
  collectGatewayUrl,
  forgetSavedCard,
  GatewayUnavailable,
} from '../../connectors/lending/collect-gateway.ts';
import { openCardToken } from '../../credentials/lending/cards.ts';
import { loadCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import { lendingCards } from '../../db/schema/lending-payment-options.ts';
import {
  type CardDeletionRequest,
  COLLECT_GATEWAY_UNAVAILABLE,
} from '../../domain/lending/sibling-processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * The collection gateway's side of a card's deletion (decisions 0045, 0047): the card's token is
 * forgotten there, so a card lending no longer lists is never chargeable. The token is read and opened
 * here, never passed through the workflow's input or history.
 */
export function createCardDeletionActivities({ db, config }: ActivityDeps) {
  return {
    /**
     * Forgets the card's saved token at the gateway (nothing to do for a card without one, or a tenant
     * without a merchant). An unreachable gateway fails the step as `CollectGatewayUnavailable`, not
     * retried: the customer is answered 503 at once and may try again.
     */
    async forgetCardAtGateway(request: CardDeletionRequest): Promise<void> {
      const [card] = await db
        .select({ tokenSealed: lendingCards.tokenSealed })
        .from(lendingCards)
        .where(
          and(
            eq(lendingCards.id, request.cardId),
            eq(lendingCards.tenantId, request.tenantId),
            eq(lendingCards.customerId, request.customerId),
          ),
        )
        .limit(1);
      if (!card?.tokenSealed) return;
      const merchant = await loadCollectMerchant(db, config, request.tenantId);
      if (!merchant) return;
      try {
        await forgetSavedCard(
          collectGatewayUrl(config),
          merchant,
          openCardToken(config, request.cardId, card.tokenSealed),
          config.LENDING_COLLECT_REQUEST_TIMEOUT,
        );
      } catch (error) {
        if (error instanceof GatewayUnavailable)
          throw ApplicationFailure.nonRetryable(error.message, COLLECT_GATEWAY_UNAVAILABLE);
        throw error;
      }
    },
  };
}
