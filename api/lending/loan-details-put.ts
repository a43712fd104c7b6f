import { createRoute } from '@hono/zod-openapi';
import { updateLoanDetailsUpdate } from '../../domain/lending/loan-process.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { calculateLoan, loanTermsBodySchema } from './credit-product-records.ts';
import {
  actorOf,
  customerLoan,
  loanAnswer,
  loanIdParams,
  loanView,
  moveLoan,
  refuseOutsideStatuses,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const { db } = c.get('deps');
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    // The status is refused before the terms are looked at.
    refuseOutsideStatuses(row, 'updateLoanDetails');
    const { product, promoCode, schedule } = await calculateLoan(db, row.tenantId, c.req.valid('json'));
    const terms = { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term };
    const moved = await moveLoan(c.get('deps'), row, 'updateLoanDetails', (loan) =>
      loan.executeUpdate(updateLoanDetailsUpdate, {
        args: [{ by: actorOf(c), terms, secured: product.secured, currency: product.currency }],
      }),
    );
    return c.json(await loanView(db, moved, 'customer'), 200);
  },
});
