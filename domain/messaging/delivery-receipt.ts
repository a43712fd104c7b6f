/**
 * Delivery outcome of a message, as reported by the carrier (SMPP deliver_sm receipt) or the
 * chat-app provider. Pure: shared by activities, the receipt router and workflows.
 */
/**
 * `expired`: the carrier's own word (SMPP `stat:EXPIRED`: its validity period passed undelivered).
 * `unknown` (decision 0084): whether the message arrived is not known — its submit_sm went out and its
 * answer was lost in a crash and it was not sent again (SMS_IN_DOUBT `unknown`), or the carrier took it
 * and no receipt came by SMS_RECEIPT_TIMEOUT.
 */
export type MessageFinalStatus =
  | 'delivered'
  | 'undeliverable'
  | 'expired'
  | 'rejected'
  | 'failed'
  | 'unknown';

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
  'unknown',
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

/**
 * The receipt of a message sent in parts, assembled from the parts' own receipts (decision 0055):
 * undefined while a part's receipt is still missing and none has failed; the first part that was not
 * delivered (undeliverable, expired, rejected...) decides at once, with its error code; delivered when
 * every part was, done when the last part was. `partIds` are the carrier's ids of the parts, in order.
 */
export function assemblePartReceipts(
  partIds: readonly string[],
  received: ReadonlyMap<string, DeliveryReceipt>,
): DeliveryReceipt | undefined {
  const receipts = partIds.map((id) => received.get(id));
  const failed = [...received.values()].find(
    (receipt) => partIds.includes(receipt.carrierMessageId) && receipt.status !== 'delivered',
  );
  if (failed) return failed;
  if (receipts.some((receipt) => receipt === undefined)) return undefined;
  const delivered = receipts as DeliveryReceipt[];
  const doneAt = delivered
    .map((receipt) => receipt.doneAt)
    .filter((at): at is string => at !== undefined)
    .sort()
    .at(-1);
  return {
    carrierMessageId: partIds[0] ?? '',
    status: 'delivered',
    carrierStatus: delivered[0]?.carrierStatus ?? 'DELIVRD',
    ...(doneAt ? { doneAt } : {}),
  };
}
