import { createWebhookActivities } from '../../activities/webhooks/index.ts';
import type { PlatformServiceModule } from '../service.ts';

/** The webhook delivery engine every service sends its callbacks through: activities only, no API. */
export const webhookEngine: PlatformServiceModule = {
  name: 'webhooks',
  worker: ({ config, db, logger }) => ({ activities: createWebhookActivities({ db, config, logger }) }),
};
