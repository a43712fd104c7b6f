import { defineUpdate } from '@temporalio/workflow';
import type { ObligationOutcome } from './obligation.ts';

/**
 * The customer's decision on the hosted card page (POST / PAGE=credit_paydirect), sent to the
 * obligation workflow `collect-<idn>` of an `online_payment`:
 * - `approved`: the sandbox card authorised the amount → PAID with the authorisation's STAN and BCODE;
 * - `declined`: the card refused it → DENIED;
 * - `cancelled`: the customer refused to pay (Cancel) → DENIED.
 * The obligation workflow validates it (only an open online_payment; refused like any other Update
 * otherwise) and notifies the merchant of the final state.
 */
export type CardPaymentDecision =
  | { outcome: 'approved'; stan: string; bcode: string }
  | { outcome: 'declined'; reason: string }
  | { outcome: 'cancelled' };

export const cardPaymentUpdate = defineUpdate<ObligationOutcome, [CardPaymentDecision]>('cardPayment');
