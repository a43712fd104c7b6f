import { createRoute } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { customerLoan, loanIdParams, loanSchema, loanView } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `GET /Customer/Loans/{loanId}`: one loan of the customer (another customer's: 404). */
export const customerLoansGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}'),
      tags: ['Customer loans'],
      summary: 'Loan details',
      description: 'The loan with its offers, collaterals, co-applicant and status history.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: { description: 'The loan', content: { 'application/json': { schema: loanSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    return c.json(await loanView(c.get('deps').db, row, 'customer'), 200);
  },
});
