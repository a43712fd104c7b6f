import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanErrorResponses, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

const amount = z.string().openapi({ example: '128.50' });

const repaymentAmountsSchema = z
  .object({
    loanId: z.string(),
    status: z.string().openapi({ example: 'Past Due' }),
    currency: z.string().openapi({ example: 'EUR' }),
    overdue: amount.openapi({ description: 'Unpaid after its due date and the grace period' }),
    dueNow: amount.openapi({ description: 'Everything due today or before (overdue included)' }),
    nextDueDate: z.string().nullable(),
    nextInstalment: amount.nullable().openapi({ description: 'The unpaid amount of the next instalment' }),
    payOff: amount.openapi({ description: 'Everything still owed: pays the loan off' }),
    daysPastDue: z.number().int(),
  })
  .openapi('RepaymentAmounts');

/**
 * `GET /PaymentOptions/RepaymentAmounts/{loanId}`: what the customer may pay on a paid-out loan now:
 * the overdue amount, what is due now, the next instalment and the pay-off amount (decision 0043).
 */
export const paymentOptionsRepaymentAmountsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/PaymentOptions/RepaymentAmounts/{loanId}'),
      tags: ['Payment options'],
      summary: 'Possible repayment amounts',
      description:
        'For the customer’s own loan (another’s: 404) once it is paid out (before: 409 `invalid_loan_status`).',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'The amounts',
          content: { 'application/json': { schema: repaymentAmountsSchema } },
        },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(await lending.repaymentAmounts(c.get('deps'), { caller: customerCaller(c), loanId }), 200);
  },
});
