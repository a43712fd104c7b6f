import { z } from 'zod';
import { duration, durationList } from '../config-fields.ts';

/** Configuration of the webhook delivery engine every service sends its callbacks through. */
export const webhookConfig = z.object({
  /** Webhook retry delays after each failed attempt (first attempt is immediate). */
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,14h,20h,24h'),
  WEBHOOK_REQUEST_TIMEOUT: duration('15s'),
});
