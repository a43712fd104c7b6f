import { createRoute, z } from '@hono/zod-openapi';
import { defineOperation } from '../../shared/operation.ts';
import { requireDeviceToken } from './device-tokens.ts';
import {
  assertRecipient,
  chooseInstrument,
  conflictResponse,
  declined,
  declinedResponse,
  loadDevice,
  paymentRecord,
  paymentRecordSchema,
  registeredFields,
  sendPayment,
} from './payment-records.ts';
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
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const device = await loadDevice(db, query.APPID, query.DEVICEID);
      assertRecipient(query.RCPT_TYPE, query.RCPT);
      const row = await sendPayment(db, {
        appId: query.APPID,
        id: query.ID,
        deviceId: query.DEVICEID,
        kind: 'registered',
        amount: Number(query.AMOUNT),
        recipient: query.RCPT,
        recipientType: query.RCPT_TYPE,
        description: query.DESCRIPTION ?? '',
        reason: query.REASON ?? '',
        instrumentId: chooseInstrument(device, query.PINS),
        show: query.SHOW ?? 'KIN',
        saveCard: null,
      });
      if (row.state === 'declined') throw declined(row);
      return c.json({ status: 'OK' as const, payment: paymentRecord(row) }, 200);
    }),
});
