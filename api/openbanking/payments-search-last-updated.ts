import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { PAYMENT_STATUSES } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import {
  DATES_OUT_OF_ORDER,
  datesInOrder,
  isoDay,
  pagingFields,
  paymentPageSchema,
} from './payment-search.ts';

/**
 * `POST /api/8/payments/search-last-updated`: the agent's payments in the given statuses, the most
 * recently changed first. The spec lists no credential; an agent's payments are never readable without
 * its credential, so x-agent-hash is required (decision 0034).
 */

const body = z
  .object({
    statuses: z
      .array(z.enum(PAYMENT_STATUSES))
      .min(1)
      .max(3)
      .default([...PAYMENT_STATUSES])
      .openapi({
        description: 'CONFIRMED, FAILED, WAITING (default all three)',
        example: ['CONFIRMED', 'FAILED'],
      }),
    dateFrom: isoDay.optional().openapi({ description: 'Last changed on or after this day (UTC)' }),
    dateTo: isoDay.optional().openapi({ description: 'Last changed on or before this day (UTC)' }),
    ...pagingFields,
  })
  .refine(datesInOrder, DATES_OUT_OF_ORDER)
  .openapi('PaymentLastUpdatedSearch');

export const paymentsSearchLastUpdatedOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/payments/search-last-updated',
      operationId: 'searchPaymentsLastUpdated',
      tags: ['Payments'],
      summary: 'Payments by status, most recently changed first',
      description:
        'The agent’s payments (single and bulk entries) whose status is one of `statuses`, sorted by the time of ' +
        'their last status or state change, newest first (ties by code). `dateFrom`/`dateTo` bound that time (UTC ' +
        'days, inclusive). Requires x-agent-hash: the spec lists none, and an agent’s payments are never readable ' +
        'without its credential.',
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
    const { statuses, dateFrom, dateTo, page, size } = c.req.valid('json');
    return c.json(
      await openbanking.searchPayments(c.get('deps'), {
        agentId,
        criteria: {
          statuses,
          ...(dateFrom ? { updatedFrom: dateFrom } : {}),
          ...(dateTo ? { updatedTo: dateTo } : {}),
        },
        sortBy: 'updatedAt',
        sortDirection: 'desc',
        page,
        size,
      }),
      200,
    );
  },
});
