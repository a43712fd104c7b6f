import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { loanIdParams, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Management/Loans/{loanId}`: a loan of the key's tenant, with the bureau's decision. */
export const managementLoansGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Loans/{loanId}'),
      tags: ['Management loans'],
      summary: 'Loan details',
      description:
        'The loan with its offers, collaterals, co-applicant, the credit bureau’s decision and status history.',
      security: lendingSecurity.apiKey,
      request: { params: loanIdParams },
      responses: {
        200: { description: 'The loan', content: { 'application/json': { schema: loanSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    return c.json(
      await lending.readLoan(c.get('deps'), {
        caller: managementCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});
