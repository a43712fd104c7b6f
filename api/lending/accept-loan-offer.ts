import { createRoute, z } from '@hono/zod-openapi';
import { acceptOfferUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `POST /Customer/Loans/{loanId}/AcceptLoanOffer?offerId=`: only in Offer confirmation → Waiting for approval. */
export const acceptLoanOfferOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/AcceptLoanOffer'),
      tags: ['Customer loans'],
      summary: 'Accept the offer',
      description:
        'Only in Offer confirmation (else 409 `invalid_loan_status`). The loan takes the offer’s amount and term ' +
        'and waits for management’s approval (Waiting for approval). `offerId` picks one of several offers; ' +
        'left out, the first. An unknown `offerId` is 400 `offer_not_found`.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({ offerId: z.string().max(60).optional().openapi({ example: '482913675-1' }) }),
      },
      responses: loanAnswer('The loan, waiting for approval'),
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const { offerId } = c.req.valid('query');
    const moved = await moveLoan(c.get('deps'), row, 'acceptOffer', (loan) =>
      loan.executeUpdate(acceptOfferUpdate, { args: [{ by: actorOf(c), offerId }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
