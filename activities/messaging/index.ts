import type { ActivityDeps } from '../shared/deps.ts';
import type { ChatAppProvider, HlrProvider, SmsCarrier } from './carriers.ts';
import { createHlrActivities } from './hlr.ts';
import { createMessageActivities } from './messages.ts';
import { createSenderIdActivities } from './sender-ids.ts';

/** The outside parties the messaging activities talk to. */
export interface MessagingConnectors {
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
  hlr: HlrProvider;
}

/** Every activity of the messaging gateway; its workflows proxy `MessagingActivities`. */
export function createMessagingActivities(deps: ActivityDeps & MessagingConnectors) {
  return {
    ...createMessageActivities(deps),
    ...createSenderIdActivities(deps),
    ...createHlrActivities(deps),
  };
}

export type MessagingActivities = ReturnType<typeof createMessagingActivities>;
