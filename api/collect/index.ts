import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../shared/context.ts';
import { validationHook } from '../shared/errors.ts';

/**
 * The payment-collection gateway (spec part A), mounted under /collect.
 * Each register* function adds the operations of one resource.
 */
export function createCollectApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  return app;
}
