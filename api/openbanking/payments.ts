import { createRoute, z } from '@hono/zod-openapi';
import { openbanking, PAYMENT_SORT_FIELDS } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { pagingFields, paymentCriteriaSchema, paymentPageSchema } from './payment-search.ts';

/**
 * `POST /api/{7,8}/payments`: the agent's payments (single payments and bulk entries) matching the
 * criteria, sorted and a page at a time. Only the calling agent's payments are ever read.
 */

const body = z
  .object({
    criteria: paymentCriteriaSchema.optional(),
    sortBy: z.enum(PAYMENT_SORT_FIELDS).default('createdAt'),
    sortDirection: z.enum(['asc', 'desc']).default('desc'),
    ...pagingFields,
  })
  .openapi('PaymentSearch');

export const paymentsOperation = defineOperation({
  versions: [7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/payments',
      operationId: 'searchPayments',
      tags: ['Payments'],
      summary: 'The agent’s payments by criteria',
      description:
        'Payments of the agent’s users (single payments and the entries of bulk payments), filtered by `criteria` ' +
        '(statuses, states, kinds, user, account, bank, hook, bulk, currency, creditor, amount range, creation days), ' +
        'sorted by `sortBy` (createdAt, updatedAt, amount, status; ties by code) and paged. An empty body lists all, ' +
        'newest first.',
      security: AGENT_SECURITY,
      request: { body: jsonBody(body) },
      responses: {
        200: {
          description: 'A page of payments',
          content: { 'application/json': { schema: paymentPageSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { criteria, sortBy, sortDirection, page, size } = c.req.valid('json');
    const answer = await openbanking.searchPayments(c.get('deps'), {
      agentId,
      criteria,
      sortBy,
      sortDirection,
      page,
      size,
    });
    return c.json(answer, 200);
  },
});
