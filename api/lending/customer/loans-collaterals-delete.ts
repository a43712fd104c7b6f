import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `DELETE /Customer/Loans/{loanId}/Collaterals/{collateralId}`: removes a collateral. */
export const collateralsDeleteOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/Customer/Loans/{loanId}/Collaterals/{collateralId}'),
      tags: ['Customer loans'],
      summary: 'Remove a collateral',
      description:
        'Removes the collateral (404 when the loan has none of that id). Statuses as for adding one.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams.extend({
          collateralId: z
            .string()
            .max(20)
            .openapi({ param: { name: 'collateralId', in: 'path' }, example: '1' }),
        }),
      },
      responses: loanAnswer('The loan without the collateral'),
    }),
  handler: () => async (c) => {
    const { loanId, collateralId } = c.req.valid('param');
    return c.json(
      await lending.deleteCollateral(c.get('deps'), { caller: customerCaller(c), loanId, collateralId }),
      200,
    );
  },
});
