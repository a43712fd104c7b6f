import { createRoute, z } from '@hono/zod-openapi';
import { collect, TAX } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deviceCredentialOf } from './parameters.ts';
import { conflictResponse, registeredFields, registeredPaymentOf } from './payment-schemas.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/** GET /xdev/api/payment/check: previews a payment of a paired device; records nothing. */

export const paymentCheckOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/xdev/api/payment/check',
      tags: ['One-touch'],
      summary: 'Check a payment before sending it',
      description:
        'Validates the payment and answers the payment instruments that could pay it with fee and total. ' +
        'Records nothing.',
      request: { query: z.object(registeredFields) },
      responses: {
        200: {
          description: 'The previewed payment',
          content: {
            'application/json': {
              schema: z.object({
                status: z.literal('OK'),
                payment: z.object({
                  ID: z.string(),
                  AMOUNT: z.number().int(),
                  PAYMENT_INSTRUMENTS: z.array(
                    z.object({
                      ID: z.string(),
                      NAME: z.string(),
                      TAX: z.number().int(),
                      TOTAL: z.number().int(),
                      STATUS: z.enum(['OK', 'DECLINED']).openapi({ description: 'Whether it would pay' }),
                    }),
                  ),
                  DATA: z.object({ RCPT_TYPE: z.string(), RCPT: z.string() }),
                }),
              }),
            },
          },
        },
        ...oneTouchErrorResponses,
        409: conflictResponse,
      },
    }),
  handler: () => (c) =>
    answerOneTouch(c, async (deps) => {
      const query = c.req.valid('query');
      const preview = await collect.checkPayment(deps, {
        credential: deviceCredentialOf(query),
        payment: registeredPaymentOf(query),
      });
      return c.json(
        {
          status: 'OK' as const,
          payment: {
            ID: preview.id,
            AMOUNT: preview.amount,
            PAYMENT_INSTRUMENTS: [
              {
                ID: preview.instrumentId,
                NAME: 'Sandbox card',
                TAX,
                TOTAL: preview.amount + TAX,
                STATUS: preview.approved ? ('OK' as const) : ('DECLINED' as const),
              },
            ],
            DATA: { RCPT_TYPE: query.RCPT_TYPE, RCPT: query.RCPT },
          },
        },
        200,
      );
    }),
});
