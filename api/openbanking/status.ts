import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import type { PaymentStatus } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { paymentSchema } from './payment-schemas.ts';

/**
 * `GET /api/{7,8}/status/{hookHash}`: the status of a payment by its hook hash, for the agent. A hook
 * hash names a hook (a URL to call), not a payment: one hook may serve many payments. So this answers
 * the latest payment (newest created) made with the hook as `payment`, and the most recent ones (up to
 * 50, newest first) as `payments`; `message` says the latest one's status in `lng` (en, bg). A hook of
 * another agent, or one no payment used, is 404. Decision 0033.
 */

const MESSAGES: Record<'en' | 'bg', Record<PaymentStatus, string>> = {
  en: {
    WAITING: 'The payment is waiting for the customer’s confirmation at the bank.',
    CONFIRMED: 'The payment was executed by the bank.',
    FAILED: 'The payment failed.',
  },
  bg: {
    WAITING: 'Плащането очаква потвърждение от клиента в банката.',
    CONFIRMED: 'Плащането е изпълнено от банката.',
    FAILED: 'Плащането е неуспешно.',
  },
};

const answer = z
  .object({
    hookHash: z.string(),
    status: z.enum(['WAITING', 'CONFIRMED', 'FAILED']),
    message: z.string(),
    payment: paymentSchema,
    payments: z
      .array(paymentSchema)
      .openapi({ description: 'The hook’s most recent payments (50), newest first' }),
  })
  .openapi('HookPaymentStatus');

export const statusOperation = defineOperation({
  versions: [7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/status/{hookHash}',
      operationId: 'getPaymentStatusByHook',
      tags: ['Payment initiation'],
      summary: 'Status of a payment by hook hash',
      description:
        'The latest payment made with the hook (`payment`, `status`, `message` in `lng`) and its recent ones. One hook ' +
        'may serve several payments: poll by `code` (GET payment/status) for one payment. Another agent’s hook is 404.',
      security: AGENT_SECURITY,
      request: {
        params: z.object({
          hookHash: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'hookHash', in: 'path' }, description: 'From createhook' }),
        }),
        query: z.object({
          lng: z.enum(['en', 'bg']).default('en').openapi({ description: 'Language of `message`' }),
        }),
      },
      responses: {
        200: { description: 'The status', content: { 'application/json': { schema: answer } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { hookHash } = c.req.valid('param');
    const { latest, payments } = await openbanking.paymentsOfHook(c.get('deps'), { agentId, hookHash });
    return c.json(
      {
        hookHash,
        status: latest.status,
        message: MESSAGES[c.req.valid('query').lng][latest.status],
        payment: latest,
        payments,
      },
      200,
    );
  },
});
