import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanIdParams, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    return c.json(
      await lending.readLoan(c.get('deps'), {
        caller: customerCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});
