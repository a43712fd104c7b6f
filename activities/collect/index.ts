import type { ActivityDeps } from '../shared/deps.ts';
import { createBillingActivities } from './billing.ts';
import { createNotificationActivities } from './notifications.ts';
import { createObligationActivities } from './obligations.ts';

/** Every activity of the payment-collection gateway; its workflows proxy `CollectActivities`. */
export function createCollectActivities(deps: ActivityDeps) {
  return {
    ...createObligationActivities(deps),
    ...createNotificationActivities(deps),
    ...createBillingActivities(deps),
  };
}

export type CollectActivities = ReturnType<typeof createCollectActivities>;
