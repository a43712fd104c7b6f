import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of SMS carriers and routes (HTTP twins of `npm run admin -- messaging:carrier…`,
 * decision 0079); the use cases are application/messaging/carriers.ts. Every range and reference is
 * checked there, so that one 400 names every bad field.
 */

const nameParam = z.object({
  name: z.string().openapi({ param: { name: 'name', in: 'path' }, example: 'carrier-a' }),
});

const carrierSchema = z
  .object({
    name: z.string(),
    url: z.string().openapi({ example: 'smpp://smsc.example.net:2775' }),
    systemId: z.string(),
    window: z.number().int(),
    submitRate: z.number().int().nullable(),
    longMessages: z.string(),
    enabled: z.boolean(),
    updatedAt: z.string(),
  })
  .openapi('SmsCarrier');

const routeSchema = z
  .object({
    name: z.string(),
    prefix: z.string().nullable(),
    mccMnc: z.string().nullable(),
    priority: z.number().int(),
    carriers: z.array(z.string()),
    enabled: z.boolean(),
    updatedAt: z.string(),
  })
  .openapi('SmsRoute');

const listOf = (schema: z.ZodTypeAny) => ({
  200: {
    description: 'All of them',
    content: { 'application/json': { schema: z.object({ items: z.array(schema) }) } },
  },
  ...errorResponses,
});

const listCarriersRoute = createRoute({
  method: 'get',
  path: '/messaging/carriers',
  tags: ['Admin'],
  summary: 'The SMS carriers (never their passwords)',
  responses: listOf(carrierSchema),
});

const putCarrierRoute = createRoute({
  method: 'put',
  path: '/messaging/carriers/{name}',
  tags: ['Admin'],
  summary: 'Create or change an SMS carrier (an SMPP bind)',
  description:
    'name: lower-case letters, digits, `-`, `_` (not `default`, the carrier of the SMPP_* variables). ' +
    '`url` smpp://host:port; `systemId` and `password` as the SMSC gave them (the password is stored ' +
    'encrypted, required to create, kept when omitted); `window` submit_sm outstanding (1-1000, 32); ' +
    '`submitRate` submit_sm a second at most per worker process (null: no limit); `longMessages` ' +
    '`message_payload`, `udh` or `sar`; `enabled: false` takes it out of every route. In production the ' +
    "address may not be private or loopback and the sandbox's password is refused. 400 " +
    '`validation_failed` names every bad field.',
  request: {
    params: nameParam,
    body: jsonBody(
      z.object({
        url: z.string().optional(),
        systemId: z.string().optional(),
        password: z.string().optional(),
        window: z.number().optional(),
        submitRate: z.number().nullable().optional(),
        longMessages: z.string().optional(),
        enabled: z.boolean().optional(),
      }),
    ),
  },
  responses: {
    200: { description: 'Stored', content: { 'application/json': { schema: carrierSchema } } },
    ...errorResponses,
  },
});

const listRoutesRoute = createRoute({
  method: 'get',
  path: '/messaging/routes',
  tags: ['Admin'],
  summary: 'The SMS routes',
  responses: listOf(routeSchema),
});

const putRouteRoute = createRoute({
  method: 'put',
  path: '/messaging/routes/{name}',
  tags: ['Admin'],
  summary: 'Create or change an SMS route',
  description:
    'A route matches destinations by `prefix` (E.164 digits without +) or `mccMnc` (an MCC: the ' +
    "country's numbers; MCC+MNC: a network's), and lists `carriers` in failover order (`default` " +
    'names the SMPP_* carrier). Among matching routes the lower `priority` (0-1000, 100) comes first, ' +
    'then the closer match. A destination no route matches goes to `default`. 400 names every bad field.',
  request: {
    params: nameParam,
    body: jsonBody(
      z.object({
        prefix: z.string().nullable().optional(),
        mccMnc: z.string().nullable().optional(),
        priority: z.number().optional(),
        carriers: z.array(z.string()).optional(),
        enabled: z.boolean().optional(),
      }),
    ),
  },
  responses: {
    200: { description: 'Stored', content: { 'application/json': { schema: routeSchema } } },
    ...errorResponses,
  },
});

export function registerMessagingCarrierAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listCarriersRoute, async (c) => c.json(await messaging.listCarriers(c.get('deps')), 200));
  app.openapi(putCarrierRoute, async (c) =>
    c.json(
      await messaging.putCarrier(c.get('deps'), {
        name: c.req.valid('param').name,
        carrier: c.req.valid('json'),
      }),
      200,
    ),
  );
  app.openapi(listRoutesRoute, async (c) => c.json(await messaging.listRoutes(c.get('deps')), 200));
  app.openapi(putRouteRoute, async (c) =>
    c.json(
      await messaging.putRoute(c.get('deps'), {
        name: c.req.valid('param').name,
        route: c.req.valid('json'),
      }),
      200,
    ),
  );
}
