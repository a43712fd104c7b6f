import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { inboundNumberSchema } from './inbound-schemas.ts';

/** `GET /inbound/numbers` (beyond the spec, decision 0087): the numbers the operator assigned to the account. */
export const inboundNumbersListOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/inbound/numbers',
      tags: ['Inbound SMS'],
      summary: 'List your inbound numbers',
      description:
        'Beyond the spec. Numbers the operator assigned to your account: SMS sent to them are yours, delivered ' +
        'to their `inboundUrl` as `message.inbound` events. You may also send from them.',
      responses: {
        200: {
          description: 'Numbers',
          content: { 'application/json': { schema: z.object({ items: z.array(inboundNumberSchema) }) } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      { items: await messaging.listInboundNumbers(c.get('deps'), { accountId: c.get('accountId') }) },
      200,
    ),
});
