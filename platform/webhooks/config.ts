import { z } from 'zod';
import { duration, durationList } from '../config-fields.ts';

/** Configuration of the webhook delivery engine every service sends its callbacks through. */
export const webhookConfig = z.object({
  /** Webhook retry delays after each failed attempt (first attempt is immediate). */
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,14h,20h,24h'),
  WEBHOOK_REQUEST_TIMEOUT: duration('15s'),
  /**
   * 64 hex characters: encrypts webhook signing secrets at rest (AES-256-GCM, credentials/webhooks/).
   * Unset outside production, a fixed development key is derived; required in production.
   */
  WEBHOOK_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  /** After a secret is rotated, deliveries carry the old secret's signature too for this long. */
  WEBHOOK_SECRET_ROTATION_OVERLAP: duration('24h'),
});

/** Keys sandbox mode derives for development but production must be given. */
export const webhookProductionKeys = ['WEBHOOK_SECRET_KEY'] as const;
