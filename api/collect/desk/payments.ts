import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import {
  DESK_SECURITY,
  deskConflictResponses,
  deskErrorResponses,
  deskOperatorOf,
  idempotencyHeaders,
  requireDeskOperator,
} from './auth.ts';
import { deskAnswerSchema, idnSchema } from './schemas.ts';

/** POST /desk/api/payments: the desk takes the payment of an IDN. */
export const deskPaymentsOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/api/payments',
      tags: ['Cash desk'],
      summary: 'Take a payment',
      description:
        'Pays an office bill, deposit slip or bank transfer order (→ PAID, the merchant is notified) with the ' +
        "desk's STAN (the receipt's sequence) and BCODE (the office id); or an IDN of a merchant's billing " +
        'system (`/pay/init`, then `/pay/confirm`, retried until the merchant answers). 201 with the receipt; ' +
        'the same `Idempotency-Key` again answers the same receipt (200, `replayed: true`). A paid IDN is 409 ' +
        '`already_paid`, whichever desk paid it.',
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      request: { headers: idempotencyHeaders, body: jsonBody(z.object({ idn: idnSchema })) },
      responses: {
        200: { description: 'Replayed', content: { 'application/json': { schema: deskAnswerSchema } } },
        201: { description: 'Paid', content: { 'application/json': { schema: deskAnswerSchema } } },
        ...deskErrorResponses,
        ...deskConflictResponses,
      },
    }),
  handler: () => async (c) => {
    const answer = await collect.takePayment(c.get('deps'), {
      operator: deskOperatorOf(c),
      idempotencyKey: c.req.valid('header')['idempotency-key'],
      idn: c.req.valid('json').idn,
    });
    return answer.replayed ? c.json(answer, 200) : c.json(answer, 201);
  },
});
