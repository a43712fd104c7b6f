import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { inboundNumberSchema, inboundUrlField } from './inbound-schemas.ts';

/**
 * `PUT /inbound/numbers/{number}` (beyond the spec, decision 0087): where the SMS sent to one of the
 * account's numbers go. Answers the URL it replaced, so that a temporary listener (`webhooks listen`)
 * can put it back.
 */
export const inboundNumbersUpdateOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: '/inbound/numbers/{number}',
      tags: ['Inbound SMS'],
      summary: 'Set where a number’s SMS go',
      description:
        'Beyond the spec. Sets (or, with null, clears) the URL the number’s `message.inbound` events go to. ' +
        '404 for a number that is not yours.',
      request: {
        params: z.object({
          number: z
            .string()
            .min(1)
            .max(20)
            .openapi({ param: { name: 'number', in: 'path' }, example: '+359888770001' }),
        }),
        body: jsonBody(z.object({ inboundUrl: inboundUrlField.nullable() }).openapi('InboundNumberUpdate')),
      },
      responses: {
        200: {
          description: 'Updated',
          content: {
            'application/json': {
              schema: z.object({ number: inboundNumberSchema, previousInboundUrl: z.string().nullable() }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.setInboundUrl(c.get('deps'), {
        accountId: c.get('accountId'),
        number: c.req.valid('param').number,
        inboundUrl: c.req.valid('json').inboundUrl,
      }),
      200,
    ),
});
