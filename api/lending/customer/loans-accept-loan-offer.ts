import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { publicBaseUrl } from '../../shared/public-url.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
        'left out, the first. An unknown `offerId` is 400 `offer_not_found`. The first signing code of each ' +
        'document (Documents) goes to the customer’s phone by SMS right away (not counted against ' +
        'ResendSmsCode’s hourly limit); a code that could not be sent is asked for with ResendSmsCode.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({ offerId: z.string().max(60).optional().openapi({ example: '482913675-1' }) }),
      },
      responses: loanAnswer('The loan, waiting for approval'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    const { offerId } = c.req.valid('query');
    const accepted = await lending.acceptLoanOffer(c.get('deps'), {
      caller: customerCaller(c),
      loanId,
      offerId,
      apiBaseUrl: publicBaseUrl(c),
    });
    return c.json(accepted, 200);
  },
});
