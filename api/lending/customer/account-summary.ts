import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { loanStatuses } from '../../../domain/lending/loan-lifecycle.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { lendingPath } from '../paths.ts';

/**
 * `GET /Customer/AccountSummary`: the current customer's loans at a glance: how many are open, closed,
 * in each status, and the principal paid out on loans being repaid, per currency (design; balances
 * after repayments come with servicing).
 */
export const customerAccountSummaryOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/AccountSummary'),
      tags: ['Customer'],
      summary: 'Summary of the customer’s account',
      description:
        'Counts of the customer’s loans (open, closed, by status) and the principal paid out on Active and Past Due ' +
        'loans per currency.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The summary',
          content: {
            'application/json': {
              schema: z
                .object({
                  customerId: z.string(),
                  openLoans: z.number().int(),
                  closedLoans: z.number().int(),
                  loansByStatus: z.partialRecord(z.enum(loanStatuses), z.number().int()),
                  disbursedPrincipal: z
                    .array(z.object({ currency: z.string(), amount: z.string() }))
                    .openapi({ description: 'Per currency: amounts of Active and Past Due loans' }),
                  pastDue: z.boolean().openapi({ description: 'Whether any loan is Past Due' }),
                })
                .openapi('AccountSummary'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    return c.json(await lending.accountSummary(c.get('deps'), { caller: customerCaller(c) }), 200);
  },
});
