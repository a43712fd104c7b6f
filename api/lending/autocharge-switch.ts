import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { managementCaller } from './callers.ts';
import { loanAnswer, loanIdParams } from './loan-schemas.ts';
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
      const { loanId } = c.req.valid('param');
      const { comment } = c.req.valid('query');
      return c.json(
        await lending.setAutocharge(c.get('deps'), {
          caller: managementCaller(c),
          loanId,
          ...{ enabled, comment },
        }),
        200,
      );
    },
  });
};
