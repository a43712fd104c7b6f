import { createRoute, z } from '@hono/zod-openapi';
import { setAutochargeUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { actorOf, loanAnswer, loanIdParams, loanView, moveLoan, tenantLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `POST /Management/Loans/{loanId}/AutochargeEnable?comment=`: enables auto-charges of an Approved, Active or Past Due loan. */
export const autochargeEnableOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/{loanId}/AutochargeEnable'),
      tags: ['Management loans'],
      summary: 'Enable auto-charges',
      description:
        'Enables charging the instalments to the customer’s default payment method on their due dates; `comment` ' +
        'is recorded. Only for an Approved, Active or Past Due loan (else 409 `invalid_loan_status`).',
      security: lendingSecurity.apiKey,
      request: {
        params: loanIdParams,
        query: z.object({
          comment: z.string().max(2000).optional().openapi({ example: 'Customer asked by phone' }),
        }),
      },
      responses: loanAnswer('The loan'),
    }),
  handler: () => async (c) => {
    const row = await tenantLoan(c, c.req.valid('param').loanId);
    const { comment } = c.req.valid('query');
    const moved = await moveLoan(c.get('deps'), row, 'enableAutocharge', (loan) =>
      loan.executeUpdate(setAutochargeUpdate, { args: [{ by: actorOf(c), enabled: true, comment }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'management'), 200);
  },
});
