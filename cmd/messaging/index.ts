import { createMessagingActivities } from '../../activities/messaging/index.ts';
import { createMessagingApi } from '../../api/messaging/index.ts';
import { createCarrierRouter } from '../../connectors/messaging/carrier-router.ts';
import { createChatAppProvider } from '../../connectors/messaging/chatapp-provider.ts';
import { createHlrProvider } from '../../connectors/messaging/hlr-provider.ts';
import { createSmppCarrier } from '../../connectors/messaging/smpp-carrier.ts';
import { loadCarriersAndRoutes } from '../../credentials/messaging/carriers.ts';
import { destinationOf } from '../../domain/messaging/carrier-routes.ts';
import type { PlatformServiceModule } from '../service.ts';
import { routeInboundSms } from './inbound.ts';
import { routeDeliveryReceipts } from './receipts.ts';

/**
 * The messaging gateway: its API under /messaging; in a worker, its carriers (built from configuration
 * with the same client code in every mode), its activities, and what arrives on the worker's SMPP
 * session: delivery receipts, routed to the message workflows, and SMS that handsets send to assigned
 * numbers (inbound.ts). The chat-app provider's status events arrive at the API instead
 * (`/messaging/chatapp/webhook`, api/messaging/chatapp-webhook.ts).
 */
export const messagingService: PlatformServiceModule = {
  name: 'messaging',
  api: { basePath: '/messaging', mount: (app, basePath) => app.route(basePath, createMessagingApi()) },
  worker({ config, db, client, logger }) {
    const smppLogger = logger.child({ component: 'smpp' });
    const connectors = {
      // The operator's carriers and routes (decision 0079), the SMPP_* carrier as `default`.
      carrier: createCarrierRouter({
        fallback: createSmppCarrier({
          url: config.SMPP_URL,
          systemId: config.SMPP_SYSTEM_ID,
          password: config.SMPP_PASSWORD,
          longMessages: config.SMPP_LONG_MESSAGES,
          udhReferenceBits: config.SMPP_UDH_REFERENCE_BITS,
          window: config.SMPP_WINDOW,
          logger: smppLogger,
        }),
        load: () => loadCarriersAndRoutes(db, config),
        connect: (carrier) =>
          createSmppCarrier({
            url: carrier.url,
            systemId: carrier.systemId,
            password: carrier.password,
            longMessages: carrier.longMessages,
            udhReferenceBits: config.SMPP_UDH_REFERENCE_BITS,
            window: carrier.window,
            submitRate: carrier.submitRate,
            logger: smppLogger.child({ carrier: carrier.name }),
          }),
        destinationOf,
        backoffMs: config.SMS_CARRIER_BACKOFF,
        refreshMs: config.SMS_ROUTES_REFRESH,
        logger: smppLogger,
      }),
      chatApp: createChatAppProvider({
        baseUrl: config.CHATAPP_URL,
        phoneNumberId: config.CHATAPP_PHONE_NUMBER_ID,
        accessToken: config.CHATAPP_API_KEY,
      }),
      hlr: createHlrProvider({
        baseUrl: config.HLR_URL,
        apiKey: config.HLR_API_KEY,
        apiSecret: config.HLR_API_SECRET,
      }),
    };
    return {
      activities: createMessagingActivities({ db, config, logger, ...connectors }),
      // Registering the receipt listener binds the SMPP session: receipts queued while no worker was
      // bound arrive now.
      started: async () => {
        routeDeliveryReceipts({ carrier: connectors.carrier, db, client, logger });
        // SMS that handsets send to assigned numbers arrive on the same session (decision 0087).
        routeInboundSms({ carrier: connectors.carrier, db, temporal: client, config, logger });
        // The operator's carriers bind now too: their receipts queued while no worker was bound arrive.
        await connectors.carrier
          .refresh()
          .catch((error: Error) =>
            logger.warn({ err: error.message }, 'sms carriers and routes not read at start'),
          );
      },
      close: () => connectors.carrier.close(),
    };
  },
};
