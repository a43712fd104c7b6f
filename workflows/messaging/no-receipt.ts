import { patched } from '@temporalio/workflow';
import type { MessageFinalStatus } from '../../domain/messaging/delivery-receipt.ts';

/**
 * Messages started before decision 0084's amendment replay ending `expired` when no receipt came;
 * new ones end `unknown`. One patch id for both workflows (sms.ts, sms-batch.ts).
 */
const NO_RECEIPT_UNKNOWN = 'sms-no-receipt-unknown';

/** The `error` of a message whose receipt never came: in its record and its report. */
export const NO_RECEIPT_ERROR =
  'no delivery receipt within SMS_RECEIPT_TIMEOUT: the carrier took the message; whether it was delivered is not known';

/**
 * The final status of a message the carrier took and never sent a receipt for by the receipt timeout.
 * `unknown`, not `expired`: `expired` is the carrier's own word (SMPP `stat:EXPIRED`, its validity
 * period passed), and without a receipt we do not know whether the message arrived.
 */
export function noReceiptOutcome(): { status: MessageFinalStatus; error?: string } {
  return patched(NO_RECEIPT_UNKNOWN) ? { status: 'unknown', error: NO_RECEIPT_ERROR } : { status: 'expired' };
}
