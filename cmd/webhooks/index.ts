import { createWebhookActivities } from '../../activities/webhooks/index.ts';
import { platformMetrics } from '../../platform/metrics.ts';
import type { PlatformServiceModule } from '../service.ts';

/** The webhook delivery engine every service sends its callbacks through: activities only, no API. */
export const webhookEngine: PlatformServiceModule = {
  name: 'webhooks',
  worker: ({ config, db, logger }) => ({
    // Outcomes counted in this process's metrics (platform_webhook_*, decision 0059).
    activities: createWebhookActivities({ db, config, logger, outcomes: platformMetrics().webhooks }),
  }),
};
