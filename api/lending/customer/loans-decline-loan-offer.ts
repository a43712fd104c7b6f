import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `POST /Customer/Loans/{loanId}/DeclineLoanOffer`: only in Offer confirmation → Offer declined (closed). */
export const declineLoanOfferOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/DeclineLoanOffer'),
      tags: ['Customer loans'],
      summary: 'Decline the offer',
      description:
        'Only in Offer confirmation (else 409 `invalid_loan_status`). The loan is closed as Offer declined.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: loanAnswer('The loan, closed as Offer declined'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(await lending.declineLoanOffer(c.get('deps'), { caller: customerCaller(c), loanId }), 200);
  },
});
