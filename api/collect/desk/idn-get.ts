import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { obligationKinds, obligationStatuses } from '../../../domain/collect/obligation.ts';
import { defineOperation } from '../../shared/operation.ts';
import {
  DESK_SECURITY,
  deskConflictResponses,
  deskErrorResponses,
  deskOperatorOf,
  requireDeskOperator,
} from './auth.ts';
import { idnSchema } from './schemas.ts';

const idnViewSchema = z
  .object({
    type: z.enum(['obligation', 'billing']),
    idn: z.string(),
    tid: z
      .string()
      .optional()
      .openapi({ description: 'Billing IDNs: the TID of the check sent to /pay/init' }),
    kind: z.enum(obligationKinds).optional(),
    action: z.enum(['payment', 'payout', 'none']).openapi({
      description: 'What the desk can do now: POST /desk/api/payments, POST /desk/api/payouts, or nothing',
    }),
    status: z.enum([...obligationStatuses, 'DUE']),
    invoice: z.string().optional(),
    merchantMin: z.string(),
    amountMinor: z.number().int(),
    amount: z.string(),
    currency: z.string(),
    description: z.string().nullable().optional(),
    expiresAt: z.string().optional(),
    expTime: z.string().optional(),
    payTime: z.string().nullable().optional(),
    shortDesc: z.string().nullable().optional(),
    invoices: z.string().nullable().optional(),
  })
  .openapi('DeskIdn');

/** GET /desk/api/idns/{idn}: what is due on an IDN (a payout's recipient data is never shown). */
export const deskIdnGetOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/desk/api/idns/{idn}',
      tags: ['Cash desk'],
      summary: 'Look up an IDN',
      description:
        'An obligation (office bill, deposit slip, bank transfer order, cash payout) with its amount, status and ' +
        "expiry; or an IDN of a merchant's billing system, for which the merchant's `/pay/init` is asked what is " +
        "due. A payout's registered recipient is not shown: the desk types in what the recipient's document says.",
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      request: { params: z.object({ idn: idnSchema }) },
      responses: {
        200: { description: 'What is due', content: { 'application/json': { schema: idnViewSchema } } },
        ...deskErrorResponses,
        409: deskConflictResponses[409],
        502: deskConflictResponses[502],
        503: deskConflictResponses[503],
      },
    }),
  handler: () => async (c) =>
    c.json(
      await collect.lookUpIdn(c.get('deps'), { operator: deskOperatorOf(c), idn: c.req.valid('param').idn }),
      200,
    ),
});
