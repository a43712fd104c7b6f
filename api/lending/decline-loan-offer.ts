import { createRoute } from '@hono/zod-openapi';
import { declineOfferUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const moved = await moveLoan(c.get('deps'), row, 'declineOffer', (loan) =>
      loan.executeUpdate(declineOfferUpdate, { args: [{ by: actorOf(c) }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
