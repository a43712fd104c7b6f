import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { createBillingActivities } from './collect/billing.ts';
import { createNotificationActivities } from './collect/notifications.ts';
import { createObligationActivities } from './collect/obligations.ts';
import type { ChatAppProvider, HlrProvider, SmsCarrier } from './messaging/carriers.ts';
import { createHlrActivities } from './messaging/hlr.ts';
import { createMessageActivities } from './messaging/messages.ts';
import { createSenderIdActivities } from './messaging/sender-ids.ts';
import { createAccountActivities } from './openbanking/accounts.ts';
import { createBankDirectoryActivities } from './openbanking/banks.ts';
import { createConsentActivities } from './openbanking/consents.ts';
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
    ...createBankDirectoryActivities(deps),
    ...createConsentActivities(deps),
    ...createAccountActivities(deps),
    ...createNotificationActivities(deps),
    ...createBillingActivities(deps),
    ...createObligationActivities(deps),
  };
}

export type PlatformActivities = ReturnType<typeof createActivities>;
