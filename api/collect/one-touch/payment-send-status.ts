import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deviceCredentialOf } from './parameters.ts';
import {
  conflictResponse,
  declined,
  declinedResponse,
  paymentRecord,
  paymentRecordSchema,
  registeredFields,
  registeredPaymentOf,
} from './payment-schemas.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/**
 * GET /xdev/api/payment/send/status: a paired device's payment, made the first time its ID is used and
 * reported (never paid again) when the same request is repeated.
 */

export const paymentSendStatusOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/xdev/api/payment/send/status',
      tags: ['One-touch'],
      summary: 'Send a payment, or get its status',
      description:
        'Pays with the device’s card the first time an ID is used; with the same ID and parameters again, ' +
        'reports the recorded payment without paying again.',
      request: { query: z.object(registeredFields) },
      responses: {
        200: {
          description: 'The payment, completed',
          content: {
            'application/json': {
              schema: z.object({ status: z.literal('OK'), payment: paymentRecordSchema }),
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
      const row = await collect.sendRegisteredPayment(deps, {
        credential: deviceCredentialOf(query),
        payment: registeredPaymentOf(query),
      });
      if (row.state === 'declined') throw declined(row);
      return c.json({ status: 'OK' as const, payment: paymentRecord(row) }, 200);
    }),
});
