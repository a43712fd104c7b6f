import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { APP_ID_PATTERN } from '../../credentials/collect/one-touch-apps.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/** Operator endpoint: create a one-touch application (APPID + SECRET) of the payment-collection gateway. */
const createAppRoute = createRoute({
  method: 'post',
  path: '/collect/one-touch/apps',
  tags: ['Admin'],
  summary: 'Create a one-touch application',
  description:
    'Creates an application and answers its APPID and SECRET; the secret is shown once, stored encrypted ' +
    '(COLLECT_SECRET_KEY) and never returned again. 409 `one_touch_app_exists` when the APPID is taken.',
  request: {
    body: jsonBody(
      z.object({
        name: z.string().min(1).max(200).openapi({ example: 'Acme mobile app' }),
        appId: z
          .string()
          .regex(APP_ID_PATTERN, '8 to 128 letters, digits, _ or -')
          .optional()
          .openapi({ description: 'Chosen APPID; 40 random digits when absent' }),
      }),
    ),
  },
  responses: {
    201: {
      description: 'Created',
      content: {
        'application/json': {
          schema: z
            .object({
              appId: z
                .string()
                .openapi({ description: 'APPID', example: '2143960160650364377823089976443473298565' }),
              name: z.string(),
              secret: z.string().openapi({ description: 'SECRET of the CHECKSUM HMAC; shown once' }),
            })
            .openapi('CreatedOneTouchApp'),
        },
      },
    },
    ...errorResponses,
    409: { description: 'APPID taken', content: errorResponses[400].content },
  },
});

export function registerOneTouchAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createAppRoute, async (c) => {
    return c.json(await collect.createApp(c.get('deps'), c.req.valid('json')), 201);
  });
}
