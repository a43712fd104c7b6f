import type { ChatAppProvider, HlrProvider, SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { ActivityDeps } from '../shared/deps.ts';
import { createHlrActivities } from './hlr.ts';
import { createNumberActivities } from './numbers.ts';
import { createSenderIdActivities } from './sender-id.ts';
import { createSmsActivities } from './sms.ts';
import { createSmsBatchActivities } from './sms-batch.ts';

/** The outside parties the messaging activities talk to. */
export interface MessagingConnectors {
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
  hlr: HlrProvider;
}

/** Every activity of the messaging gateway; its workflows proxy `MessagingActivities`. */
export function createMessagingActivities(deps: ActivityDeps & MessagingConnectors) {
  return {
    ...createSmsActivities(deps),
    ...createSmsBatchActivities(deps),
    ...createSenderIdActivities(deps),
    ...createHlrActivities(deps),
    ...createNumberActivities(deps),
  };
}

export type MessagingActivities = ReturnType<typeof createMessagingActivities>;
