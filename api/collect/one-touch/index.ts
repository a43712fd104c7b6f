import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../shared/context.ts';
import { registerOneTouchPairingRoutes } from './pairing.ts';
import { registerOneTouchPaymentRoutes } from './payments.ts';
import { oneTouchValidationHook } from './responses.ts';

/**
 * One-touch payments (spec A.8) under /collect/xdev/api/...: device pairing and tokens, payments by a
 * paired device, and payments without registration. Answers follow ePay.bg's one-touch JSON shape
 * (`status` OK / ERR), see ./responses.ts and docs/collect.md.
 */
export function registerOneTouchRoutes(app: OpenAPIHono<AppEnv>): void {
  // A sub-app of its own so that validation failures, too, answer in the one-touch shape.
  const oneTouch = new OpenAPIHono<AppEnv>({ defaultHook: oneTouchValidationHook });
  registerOneTouchPairingRoutes(oneTouch);
  registerOneTouchPaymentRoutes(oneTouch);
  app.route('/', oneTouch);
}
