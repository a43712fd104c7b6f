import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';

/** `GET /hlr/{id}`: a number lookup of the account and, once it is done, its result. */

const hlrResultSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Id of the lookup', example: '3f1c2b9e-8a44-4c55-b3a3-0d6f0c3e2a11' }),
    error: z
      .string()
      .nullable()
      .openapi({
        description:
          'null on success; otherwise `unknown_subscriber`, `absent_subscriber` (handset unreachable), ' +
          '`undetermined` (the HLR could not tell) or `lookup_failed` (the HLR could not be reached in time)',
        example: null,
      }),
    imsi: z.string().nullable().openapi({ example: '284011234567890' }),
    country: z
      .string()
      .nullable()
      .openapi({ description: 'ISO 3166-1 alpha-2 country of the network', example: 'BG' }),
    operatorId: z
      .string()
      .nullable()
      .openapi({ description: 'MCC+MNC of the serving network', example: '28401' }),
    mcc: z.string().nullable().openapi({ example: '284' }),
    mnc: z.string().nullable().openapi({ example: '01' }),
    ported: z
      .array(z.string())
      .openapi({ description: 'MCC+MNC of networks the number was ported from', example: [] }),
  })
  .openapi('HlrResult');

const lookupSchema = z
  .object({
    id: z.string(),
    number: z.string().openapi({ description: 'The number looked up, E.164', example: '+359888123456' }),
    status: z.enum(['pending', 'completed', 'failed']).openapi({
      description:
        'pending → completed (the HLR answered; see `result.error`) or failed (`result.error` = lookup_failed)',
    }),
    callBackUrl: z.string(),
    result: hlrResultSchema
      .nullable()
      .openapi({ description: 'The result as sent to callBackUrl; null while pending' }),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .openapi('HlrLookup');

export const hlrGetOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/hlr/{id}',
      tags: ['Number lookup'],
      summary: 'Get a number lookup and its result',
      request: { params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }) },
      responses: {
        200: { description: 'The lookup', content: { 'application/json': { schema: lookupSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.getHlrLookup(c.get('deps'), {
        accountId: c.get('accountId'),
        id: c.req.valid('param').id,
      }),
      200,
    ),
});
