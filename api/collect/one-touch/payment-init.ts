import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { collectOneTouchPayments } from '../../../db/schema/collect-one-touch.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter, requireDeviceToken, tokenParameter } from './device-tokens.ts';
import { answerOneTouch, OneTouchError, oneTouchErrorResponses } from './responses.ts';

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
    answerOneTouch(c, async ({ db, config }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const now = Date.now();
      const expiresAt = query.EXP
        ? new Date(Number(query.EXP) * 1000)
        : new Date(now + config.COLLECT_ONE_TOUCH_PAYMENT_ID_TTL);
      if (expiresAt.getTime() <= now) throw OneTouchError.invalid('EXP', 'must be in the future');
      if (expiresAt.getTime() > now + config.COLLECT_MAX_EXPIRY) {
        throw OneTouchError.invalid('EXP', 'is too far in the future (COLLECT_MAX_EXPIRY)');
      }
      const id = randomBytes(32).toString('base64url');
      await db.insert(collectOneTouchPayments).values({
        appId: query.APPID,
        id,
        deviceId: query.DEVICEID,
        kind: 'registered',
        state: 'initialized',
        expiresAt,
      });
      return c.json(
        { status: 'OK' as const, payment: { ID: id, EXP: Math.floor(expiresAt.getTime() / 1000) } },
        200,
      );
    }),
});
