import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { scheduleSchema } from '../credit-product-schemas.ts';
import { loanErrorResponses, loanIdParams, loanOfferSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

export const offerWithScheduleSchema = loanOfferSchema
  .extend({
    schedule: scheduleSchema.nullable().openapi({
      description:
        'The repayment schedule of the offer if the loan started today (null if its product is gone)',
    }),
  })
  .openapi('LoanOfferWithSchedule');

/** `GET /Customer/Loans/{loanId}/LoanOffer`: the offer; only in Offer confirmation. */
export const loanOfferOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/LoanOffer'),
      tags: ['Customer loans'],
      summary: 'The loan offer',
      description:
        'Only in Offer confirmation (else 409 `invalid_loan_status`): the first offer with its schedule.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'The offer',
          content: { 'application/json': { schema: offerWithScheduleSchema } },
        },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    return c.json(
      await lending.loanOffer(c.get('deps'), {
        caller: customerCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});

export const offersSchema = z.object({ offers: z.array(offerWithScheduleSchema) }).openapi('LoanOffers');
