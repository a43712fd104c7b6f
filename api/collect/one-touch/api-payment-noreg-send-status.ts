import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter } from './parameters.ts';
import {
  conflictResponse,
  declined,
  declinedResponse,
  paymentFields,
  paymentRecord,
  paymentRecordSchema,
  paymentTermsOf,
} from './payment-schemas.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/**
 * GET /xdev/api/api/payment/noreg/send/status: a payment without a paired device, authenticated by the
 * CHECKSUM of its parameters (keyed with the application SECRET); idempotent per APPID + ID.
 */

export const paymentNoregSendStatusOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/xdev/api/api/payment/noreg/send/status',
      tags: ['One-touch'],
      summary: 'Pay, or get the status, without a paired device',
      description:
        'Authenticated by CHECKSUM: the lowercase hex HMAC-SHA1, keyed with the application SECRET, of every ' +
        'parameter of the request except CHECKSUM, sorted by name, each as a line `KEY VALUE\\n`. ' +
        'Idempotent per APPID + ID like `payment/send/status`.',
      request: {
        query: z.object({
          APPID: appIdParameter,
          DEVICEID: deviceIdParameter,
          ...paymentFields,
          CHECKSUM: z
            .string()
            .regex(/^[0-9a-fA-F]{40}$/, '40 hex characters (HMAC-SHA1)')
            .openapi({
              description: 'HMAC-SHA1 hex of the sorted parameters',
              example: 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
            }),
          SAVECARD: z
            .enum(['0', '1'])
            .optional()
            .openapi({ description: '1: keep the card for later payments (recorded)', example: '0' }),
        }),
      },
      responses: {
        200: {
          description: 'The payment, completed',
          content: {
            'application/json': {
              schema: z.object({
                status: z.literal('OK'),
                payment: paymentRecordSchema,
                savecard: z.number().int().openapi({ description: 'SAVECARD as recorded (0 or 1)' }),
              }),
            },
          },
        },
        ...oneTouchErrorResponses,
        402: declinedResponse,
        409: conflictResponse,
      },
    }),
  handler: () => (c) =>
    answerOneTouch(c, async (deps) => {
      const query = c.req.valid('query');
      const saveCard = query.SAVECARD ?? '0';
      const row = await collect.sendUnpairedPayment(deps, {
        appId: query.APPID,
        deviceId: query.DEVICEID,
        params: c.req.query(),
        checksum: query.CHECKSUM,
        payment: paymentTermsOf(query),
        saveCard,
      });
      if (row.state === 'declined') throw declined(row, { savecard: Number(saveCard) });
      return c.json({ status: 'OK' as const, payment: paymentRecord(row), savecard: Number(saveCard) }, 200);
    }),
});
