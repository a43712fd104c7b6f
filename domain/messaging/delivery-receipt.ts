/**
 * Delivery outcome of a message, as reported by the carrier (SMPP deliver_sm receipt) or the
 * chat-app provider. Pure: shared by activities, the receipt router and workflows.
 */
export type MessageFinalStatus = 'delivered' | 'undeliverable' | 'expired' | 'rejected' | 'failed';

/** Every status a message can have in the read model, in lifecycle order. */
export const MESSAGE_STATUSES = [
  'accepted',
  'scheduled',
  'sending',
  'submitted',
  'delivered',
  'undeliverable',
  'expired',
  'rejected',
  'failed',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface DeliveryReceipt {
  carrierMessageId: string;
  status: MessageFinalStatus;
  /** The carrier's own word (e.g. SMPP `stat:DELIVRD`). */
  carrierStatus: string;
  errorCode?: string;
  /** ISO time the carrier reports the outcome happened. */
  doneAt?: string;
}
