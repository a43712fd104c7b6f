import { createRoute, z } from '@hono/zod-openapi';
import { setAutochargeUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { actorOf, loanAnswer, loanIdParams, loanView, moveLoan, tenantLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Management/Loans/{loanId}/AutochargeEnable` and `.../AutochargeDisable?comment=`: the one
 * definition of both switches; only for an Approved, Active or Past Due loan.
 */
export const autochargeSwitchOperation = (switchTo: 'Enable' | 'Disable') => {
  const enabled = switchTo === 'Enable';
  return defineLendingOperation({
    route: () =>
      createRoute({
        method: 'post',
        path: lendingPath(`/Management/Loans/{loanId}/Autocharge${switchTo}`),
        tags: ['Management loans'],
        summary: `${switchTo} auto-charges`,
        description:
          `${switchTo}s charging the instalments to the customer’s default payment method on their due dates; ` +
          '`comment` is recorded. Only for an Approved, Active or Past Due loan (else 409 `invalid_loan_status`).',
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
      const operation = enabled ? 'enableAutocharge' : 'disableAutocharge';
      const moved = await moveLoan(c.get('deps'), row, operation, (loan) =>
        loan.executeUpdate(setAutochargeUpdate, { args: [{ by: actorOf(c), enabled, comment }] }),
      );
      return c.json(await loanView(c.get('deps').db, moved, 'management'), 200);
    },
  });
};
