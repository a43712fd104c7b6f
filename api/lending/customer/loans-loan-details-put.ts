import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanTermsBodySchema } from '../credit-product-schemas.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `PUT /Customer/Loans/{loanId}/LoanDetails`: new terms (product, amount, term) for the application.
 * Before a decision the status stays; in Offer confirmation or Waiting for approval the offer rested on
 * the old terms, so the loan goes to Reprocessing and is processed again (design).
 */
export const loanDetailsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Customer/Loans/{loanId}/LoanDetails'),
      tags: ['Customer loans'],
      summary: 'Update the loan details',
      description:
        'Replaces the terms (`productName` or a promo code, `amount`, `term`; 400 names a refused field). Allowed ' +
        'in Pre-Origination, Origination, Reprocessing and Collateral (status unchanged) and in Offer confirmation ' +
        'and Waiting for approval (→ Reprocessing: the offer is withdrawn); else 409 `invalid_loan_status`.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, body: jsonBody(loanTermsBodySchema) },
      responses: loanAnswer('The loan with its new terms'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(
      await lending.updateLoanDetails(c.get('deps'), {
        caller: customerCaller(c),
        loanId,
        terms: c.req.valid('json'),
      }),
      200,
    );
  },
});
