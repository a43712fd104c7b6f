import { messaging } from '../../application/messaging/index.ts';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';

/**
 * SMS that handsets send to the platform's numbers arrive on the worker's SMPP session, beside the
 * delivery receipts (receipts.ts). Each is handed to `messaging.receiveInboundSms` (decision 0087),
 * which stores it before the SMSC gets its deliver_sm_resp: a failure there answers a temporary error
 * and the SMSC sends the SMS again, which the use case recognises as the same message.
 */
export function routeInboundSms(deps: UseCaseDeps & { carrier: SmsCarrier }): void {
  const { carrier, ...useCaseDeps } = deps;
  carrier.onInbound?.(async (sms) => {
    await messaging.receiveInboundSms(useCaseDeps, sms);
  });
}
