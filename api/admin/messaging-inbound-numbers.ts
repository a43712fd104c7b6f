import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { inboundNumberSchema, inboundUrlField } from '../messaging/inbound-schemas.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoint: assigns a number to a messaging account (the HTTP twin of `npm run admin --
 * messaging:number`, decision 0087): SMS handsets send to it become the account's `message.inbound`
 * events, and the account may send from it.
 */
const assignRoute = createRoute({
  method: 'post',
  path: '/messaging/accounts/{accountId}/numbers',
  tags: ['Admin'],
  summary: 'Assign a number to a messaging account',
  description:
    '201 when assigned now, 200 when it was already this account’s (its `inboundUrl` updated when given); ' +
    '409 `number_assigned` when it is another account’s; 404 for an unknown account.',
  request: {
    params: z.object({ accountId: z.string().min(1).max(100).openapi({ example: 'acc_3f2a...' }) }),
    body: jsonBody(
      z.object({
        number: z.string().min(1).max(30).openapi({ description: 'E.164', example: '+359888770001' }),
        inboundUrl: inboundUrlField.nullable().optional(),
      }),
    ),
  },
  responses: {
    201: { description: 'Assigned', content: { 'application/json': { schema: inboundNumberSchema } } },
    200: {
      description: 'Already assigned to the account',
      content: { 'application/json': { schema: inboundNumberSchema } },
    },
    ...errorResponses,
    409: { description: 'Another account’s number', content: errorResponses[400].content },
  },
});

export function registerMessagingInboundNumberAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(assignRoute, async (c) => {
    const { number, inboundUrl } = c.req.valid('json');
    const assigned = await messaging.assignInboundNumber(c.get('deps'), {
      accountId: c.req.valid('param').accountId,
      number,
      inboundUrl,
    });
    return assigned.created ? c.json(assigned.number, 201) : c.json(assigned.number, 200);
  });
}
