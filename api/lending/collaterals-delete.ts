import { createRoute, z } from '@hono/zod-openapi';
import { deleteCollateralUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const { customerId } = requireCustomer(c);
    const { loanId, collateralId } = c.req.valid('param');
    const row = await customerLoan(c, customerId, loanId);
    const moved = await moveLoan(c.get('deps'), row, 'changeCollaterals', (loan) =>
      loan.executeUpdate(deleteCollateralUpdate, { args: [{ by: actorOf(c), collateralId }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
