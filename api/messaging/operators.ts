import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { mobileNetworkSchema, networkBody } from './reference-schemas.ts';

/** `GET /operators/{operatorId}`: the network with this MCC/MNC. */
export const operatorsOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/operators/{operatorId}',
      tags: ['Reference data'],
      summary: 'Operator details',
      description:
        'The network with this MCC/MNC. Where several are published with the same code (Crown dependencies ' +
        'share UK codes, for example), the operational one is returned and the others are in `otherListings`.',
      request: {
        params: z.object({
          operatorId: z
            .string()
            .regex(/^\d{5,6}$/, 'must be MCC + MNC: 5 or 6 digits')
            .openapi({ description: 'MCC + MNC', example: '28401' }),
        }),
      },
      responses: {
        200: {
          description: 'The operator',
          content: {
            'application/json': {
              schema: mobileNetworkSchema
                .extend({
                  otherListings: z
                    .array(mobileNetworkSchema)
                    .openapi({ description: 'Other networks published with the same MCC/MNC', example: [] }),
                })
                .openapi('Operator'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => (c) => {
    const found = messaging.getOperator(c.get('deps'), { operatorId: c.req.valid('param').operatorId });
    return c.json(
      { ...networkBody(found.network), otherListings: found.otherListings.map(networkBody) },
      200,
    );
  },
});
