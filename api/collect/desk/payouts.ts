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

/** POST /desk/api/payouts: the desk hands out a cash payout to its identified recipient. */
export const deskPayoutsOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/api/payouts',
      tags: ['Cash desk'],
      summary: 'Pay out a cash payout',
      description:
        "The recipient's personal or document number (`recipientId`, exactly as registered as RCPT_ID) and " +
        'name (`recipientName`, compared without regard to case, spacing, hyphens and apostrophes) as their ' +
        'identity document shows them; when both match the payout (office/send.cgi) it becomes PAID (STAN and ' +
        'BCODE 000000) and the merchant is notified. 422 `identity_mismatch` otherwise (which field differs is ' +
        'not said). 201 with the receipt; the same `Idempotency-Key` answers the same receipt or refusal.',
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      request: {
        headers: idempotencyHeaders,
        body: jsonBody(
          z.object({
            idn: idnSchema,
            recipientId: z
              .string()
              .trim()
              .min(1)
              .max(20)
              .openapi({ description: "The recipient's personal or document number", example: '8001011234' }),
            recipientName: z
              .string()
              .trim()
              .min(2)
              .max(100)
              .openapi({ description: "The recipient's full name", example: 'Ivan Petrov' }),
          }),
        ),
      },
      responses: {
        200: { description: 'Replayed', content: { 'application/json': { schema: deskAnswerSchema } } },
        201: { description: 'Paid out', content: { 'application/json': { schema: deskAnswerSchema } } },
        ...deskErrorResponses,
        ...deskConflictResponses,
      },
    }),
  handler: () => async (c) => {
    const body = c.req.valid('json');
    const answer = await collect.payOutCash(c.get('deps'), {
      operator: deskOperatorOf(c),
      idempotencyKey: c.req.valid('header')['idempotency-key'],
      ...body,
    });
    return answer.replayed ? c.json(answer, 200) : c.json(answer, 201);
  },
});
