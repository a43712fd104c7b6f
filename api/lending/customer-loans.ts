import { createRoute, z } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { activeLoansOf, loanSchema, loanView } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `GET /Customer/Loans`: the customer's active loans only (closed ones are left out), newest first. */
export const customerLoansOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans'),
      tags: ['Customer loans'],
      summary: 'The customer’s active loans',
      description:
        'Every loan of the authenticated customer that is not closed (Repaid, Rejected, Cancelled, Offer declined ' +
        'and Written off are left out), newest first.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The active loans',
          content: {
            'application/json': { schema: z.object({ loans: z.array(loanSchema) }).openapi('Loans') },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { db } = c.get('deps');
    const { customerId } = requireCustomer(c);
    const rows = await activeLoansOf(db, c.get('lendingTenant').id, customerId);
    const loans = await Promise.all(rows.map((row) => loanView(db, row, 'customer')));
    return c.json({ loans }, 200);
  },
});
