import { proxyActivities } from '@temporalio/workflow';
import type { createCardDeletionActivities } from '../../activities/lending/card-deletion.ts';
import type { CardDeletionRequest } from '../../domain/lending/sibling-processes.ts';

type CardDeletionActivities = ReturnType<typeof createCardDeletionActivities>;

// The customer waits for the answer: an unreachable gateway is not retried, our own failures briefly.
const { forgetCardAtGateway } = proxyActivities<CardDeletionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * A card forgotten at the collection gateway (DeleteMethod of a card, decisions 0045 and 0047): the one
 * step lending's use case awaits before it deletes the card in its own table.
 */
export async function lendingCardDeletion(request: CardDeletionRequest): Promise<void> {
  await forgetCardAtGateway(request);
}
