import { createRoute } from '@hono/zod-openapi';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { offersSchema, offerWithSchedule, refuseUnlessReadable } from './loan-offer.ts';
import { customerLoan, loanErrorResponses, loanIdParams } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `GET /Customer/Loans/{loanId}/LoanOffers`: every offer; only in Offer confirmation and when the loan
 * was decided with the tenant's multiple-offers feature on (409 `multiple_offers_disabled` otherwise).
 */
export const loanOffersOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/LoanOffers'),
      tags: ['Customer loans'],
      summary: 'All loan offers',
      description:
        'Only in Offer confirmation (else 409 `invalid_loan_status`) and when the loan was decided with the ' +
        'multiple-offers feature on (else 409 `multiple_offers_disabled`).',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: { description: 'The offers', content: { 'application/json': { schema: offersSchema } } },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    refuseUnlessReadable(row, 'readOffers');
    const { db } = c.get('deps');
    const offers = await Promise.all(row.offers.map((offer) => offerWithSchedule(db, row, offer)));
    return c.json({ offers }, 200);
  },
});
