import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../shared/context.ts';
import { validationHook } from '../shared/errors.ts';

/**
 * The open-banking gateway, mounted under /openbanking: `/api/{6,7,8,9}/...` with each operation
 * mounted in the versions the spec lists for it, plus the bank callback `/redirect/{app}/state/{state}`.
 */
export function createOpenBankingApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  return app;
}
