import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanErrorResponses, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';
import { offersSchema } from './loans-loan-offer.ts';

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
    return c.json(
      await lending.loanOffers(c.get('deps'), {
        caller: customerCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});
