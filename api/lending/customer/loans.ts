import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    return c.json(
      { loans: await lending.customerActiveLoans(c.get('deps'), { caller: customerCaller(c) }) },
      200,
    );
  },
});
