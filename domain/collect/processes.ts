import { defineSignal } from '@temporalio/workflow';

/**
 * The payment-collection gateway's processes as their callers (API, activities, other workflows) see
 * them: workflow ids (`<process>-<business id>`), signals, and what crosses the boundary.
 */

/** A status change to notify to the merchant (notifyMerchant, workflows/collect/notifications.ts). */
export interface MerchantNotification {
  merchantId: string;
  invoice: string;
  idn: string;
  status: 'PAID' | 'DENIED' | 'EXPIRED';
  payTime?: string /* YYYYMMDDhhmmss */;
  stan?: string;
  bcode?: string;
  amountMinor?: number;
}

/** Business id as workflow id: one delivery process per merchant. */
export const merchantNotificationsWorkflowId = (merchantMin: string) =>
  `merchant-notifications-${merchantMin}`;

/** A status change recorded for the merchant (see queueMerchantNotification). */
export const notificationQueuedSignal =
  defineSignal<[{ notificationId: string; invoice: string }]>('notificationQueued');
