import type { ChatAppProvider, HlrProvider, SmsCarrier } from '../activities/messaging/carriers.ts';
import { createChatAppProvider } from '../activities/messaging/chatapp-provider.ts';
import { createHlrProvider } from '../activities/messaging/hlr-provider.ts';
import { createSmppCarrier } from '../activities/messaging/smpp-carrier.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

export interface Connectors {
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
  hlr: HlrProvider;
}

/** The outside parties, built from configuration with the same client code in every mode. */
export function createConnectors(config: Config, logger: Logger): Connectors {
  return {
    carrier: createSmppCarrier({
      url: config.SMPP_URL,
      systemId: config.SMPP_SYSTEM_ID,
      password: config.SMPP_PASSWORD,
      logger: logger.child({ component: 'smpp' }),
    }),
    chatApp: createChatAppProvider({ baseUrl: config.CHATAPP_URL, apiKey: config.CHATAPP_API_KEY }),
    hlr: createHlrProvider({ baseUrl: config.HLR_URL, apiKey: config.HLR_API_KEY }),
  };
}
