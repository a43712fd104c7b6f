import type { ActivityDeps } from '../shared/deps.ts';
import { createBillingActivities } from './billing.ts';
import { createMerchantNotificationActivities } from './merchant-notifications.ts';
import { createObligationActivities } from './obligation.ts';

/** Every activity of the payment-collection gateway; its workflows proxy `CollectActivities`. */
export function createCollectActivities(deps: ActivityDeps) {
  return {
    ...createObligationActivities(deps),
    ...createMerchantNotificationActivities(deps),
    ...createBillingActivities(deps),
  };
}

export type CollectActivities = ReturnType<typeof createCollectActivities>;
