import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { ChatAppProvider, HlrProvider, SmsCarrier } from './messaging/carriers.ts';
import { createHlrActivities } from './messaging/hlr.ts';
import { createMessageActivities } from './messaging/messages.ts';
import { createSenderIdActivities } from './messaging/sender-ids.ts';
import { createWebhookActivities } from './webhooks/index.ts';

/** Everything activities may touch, injected so that tests and the embedded stack wire the same code. */
export interface ActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
  hlr: HlrProvider;
  /** Outbound HTTP for webhooks; defaults to the global fetch. */
  fetch?: typeof fetch;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createMessageActivities(deps),
    ...createSenderIdActivities(deps),
    ...createHlrActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type PlatformActivities = ReturnType<typeof createActivities>;
