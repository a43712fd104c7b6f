import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createAdminApi } from './admin/index.ts';
import { createMessagingApi } from './messaging/index.ts';
import type { ApiDeps, AppEnv } from './shared/context.ts';
import { docsAssets } from './shared/docs.ts';
import { ApiError, toErrorResponse } from './shared/errors.ts';

/** Resolves with the name of each component that is not ready (empty when all are). */
export type ReadinessProbe = () => Promise<string[]>;

/**
 * The platform's single HTTP application: every service under its base path, one error model,
 * one access-log line per request.
 */
export function createApp(deps: ApiDeps, readiness: ReadinessProbe): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const requestId = c.req.header('x-request-id') ?? randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    const started = performance.now();
    await next();
    c.header('x-request-id', requestId);
    // The path only: query strings may carry credentials (`at`) and are never logged.
    deps.logger.info(
      {
        kind: 'request',
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });

  app.get('/health', async (c) => {
    const notReady = await readiness();
    return notReady.length === 0
      ? c.json({ status: 'ok' }, 200)
      : c.json({ status: 'starting', notReady }, 503);
  });

  app.route('/assets/swagger-ui', docsAssets());
  app.route('/messaging', createMessagingApi());
  app.route('/admin', createAdminApi());

  app.notFound((c) => c.json(ApiError.notFound(`${c.req.method} ${c.req.path}`).body(), 404));
  app.onError((error, c) =>
    toErrorResponse(error, c, (e) => deps.logger.error({ err: e, path: c.req.path }, 'unhandled error')),
  );
  return app;
}
