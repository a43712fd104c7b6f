import { createRoute, z } from '@hono/zod-openapi';
import { updateCollateral } from '../../application/lending/loan-moves.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { customerCaller } from './callers.ts';
import { collateralBodySchema } from './collaterals-add.ts';
import { loanAnswer, loanIdParams } from './loan-schemas.ts';
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
    const { loanId } = c.req.valid('param');
    return c.json(await updateCollateral(c.get('deps'), customerCaller(c), loanId, c.req.valid('json')), 200);
  },
});
