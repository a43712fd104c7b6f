import { createRoute, z } from '@hono/zod-openapi';
import { defineOperation } from '../../shared/operation.ts';
import { requireDeviceToken } from './device-tokens.ts';
import {
  assertRecipient,
  assertUsableReservation,
  chooseInstrument,
  conflictResponse,
  idConflict,
  loadDevice,
  loadPayment,
  registeredFields,
  SANDBOX_CARD_LIMIT,
  TAX,
} from './payment-records.ts';
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
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const device = await loadDevice(db, query.APPID, query.DEVICEID);
      assertRecipient(query.RCPT_TYPE, query.RCPT);
      const instrumentId = chooseInstrument(device, query.PINS);
      const existing = await loadPayment(db, query.APPID, query.ID);
      if (existing && existing.state !== 'initialized') throw idConflict('ID was already used for a payment');
      if (existing) assertUsableReservation(existing, query.DEVICEID, new Date());
      const amount = Number(query.AMOUNT);
      return c.json(
        {
          status: 'OK' as const,
          payment: {
            ID: query.ID,
            AMOUNT: amount,
            PAYMENT_INSTRUMENTS: [
              {
                ID: instrumentId,
                NAME: 'Sandbox card',
                TAX,
                TOTAL: amount + TAX,
                STATUS: amount <= SANDBOX_CARD_LIMIT ? ('OK' as const) : ('DECLINED' as const),
              },
            ],
            DATA: { RCPT_TYPE: query.RCPT_TYPE, RCPT: query.RCPT },
          },
        },
        200,
      );
    }),
});
