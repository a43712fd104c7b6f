import { createRoute, z } from '@hono/zod-openapi';
import { updateCollateralUpdate } from '../../domain/lending/loan-process.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { collateralBodySchema } from './collaterals-add.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `PUT /Customer/Loans/{loanId}/Collaterals`: replaces the collateral named by `collateralId`. */
export const collateralsUpdateOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Customer/Loans/{loanId}/Collaterals'),
      tags: ['Customer loans'],
      summary: 'Update a collateral',
      description:
        'Replaces collateral `collateralId` (404 when the loan has none of that id). Statuses as for adding one.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        body: jsonBody(
          collateralBodySchema
            .extend({ collateralId: z.string().min(1).max(20).openapi({ example: '1' }) })
            .openapi('CollateralUpdate'),
        ),
      },
      responses: loanAnswer('The loan with the collateral replaced'),
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const collateral = c.req.valid('json');
    const moved = await moveLoan(c.get('deps'), row, 'changeCollaterals', (loan) =>
      loan.executeUpdate(updateCollateralUpdate, { args: [{ by: actorOf(c), collateral }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
