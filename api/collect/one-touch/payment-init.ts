import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceCredentialOf, deviceIdParameter, tokenParameter } from './parameters.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/** GET /xdev/api/payment/init: reserves a payment ID for the device, usable until EXP. */

export const paymentInitOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/xdev/api/payment/init',
      tags: ['One-touch'],
      summary: 'Reserve a payment ID',
      description:
        'Issues a payment ID for this device, usable with `payment/check` and `payment/send/status` until EXP ' +
        '(default COLLECT_ONE_TOUCH_PAYMENT_ID_TTL, 1 hour).',
      request: {
        query: z.object({
          APPID: appIdParameter,
          DEVICEID: deviceIdParameter,
          TOKEN: tokenParameter,
          TYPE: z.literal('send').openapi({ description: 'Always `send`', example: 'send' }),
          EXP: z
            .string()
            .regex(/^\d{1,12}$/, 'Unix time in seconds')
            .optional()
            .openapi({
              description: 'Until when the ID may be used (Unix time, seconds)',
              example: '1800000000',
            }),
        }),
      },
      responses: {
        200: {
          description: 'The reserved ID',
          content: {
            'application/json': {
              schema: z.object({
                status: z.literal('OK'),
                payment: z.object({ ID: z.string(), EXP: z.number().int() }),
              }),
            },
          },
        },
        ...oneTouchErrorResponses,
      },
    }),
  handler: () => (c) =>
    answerOneTouch(c, async (deps) => {
      const query = c.req.valid('query');
      const { id, expiresAt } = await collect.reservePaymentId(deps, {
        credential: deviceCredentialOf(query),
        exp: query.EXP,
      });
      return c.json(
        { status: 'OK' as const, payment: { ID: id, EXP: Math.floor(expiresAt.getTime() / 1000) } },
        200,
      );
    }),
});
