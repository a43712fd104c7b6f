import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../shared/deps.ts';
import { createAcquirerActivities } from './acquirer.ts';
import { createBillingActivities } from './billing.ts';
import { createLedgerActivities } from './ledger.ts';
import { createMerchantNotificationActivities } from './merchant-notifications.ts';
import { createObligationActivities } from './obligation.ts';
import { createSavedCardActivities } from './saved-cards.ts';
import { createStatementActivities } from './statements.ts';

/**
 * Every activity of the payment-collection gateway; its workflows proxy `CollectActivities`. `temporal`:
 * bank-statement settlements are Updates of the obligations' workflows.
 */
export function createCollectActivities(deps: ActivityDeps & { temporal: Client }) {
  return {
    ...createObligationActivities(deps),
    ...createLedgerActivities(deps),
    ...createMerchantNotificationActivities(deps),
    ...createBillingActivities(deps),
    ...createAcquirerActivities(deps),
    ...createSavedCardActivities(deps),
    ...createStatementActivities(deps),
  };
}

export type CollectActivities = ReturnType<typeof createCollectActivities>;
