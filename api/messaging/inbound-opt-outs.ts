import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { optOutSchema } from './inbound-schemas.ts';

/** `GET /inbound/optOuts` (beyond the spec, decision 0087): handsets that sent STOP to the account's numbers. */
export const inboundOptOutsOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/inbound/optOuts',
      tags: ['Inbound SMS'],
      summary: 'List opt-outs',
      description:
        'Beyond the spec. Handsets that sent STOP (STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) to one of your numbers ' +
        'and not START (UNSTOP) since, newest first: a message from that number to that handset is refused with ' +
        '422 `recipient_opted_out` naming `to`.',
      responses: {
        200: {
          description: 'Opt-outs',
          content: { 'application/json': { schema: z.object({ items: z.array(optOutSchema) }) } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json({ items: await messaging.listOptOuts(c.get('deps'), { accountId: c.get('accountId') }) }, 200),
});
