import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';
import { collateralBodySchema } from './loans-collaterals-add.ts';

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
    return c.json(
      await lending.updateCollateral(c.get('deps'), {
        caller: customerCaller(c),
        loanId,
        collateral: c.req.valid('json'),
      }),
      200,
    );
  },
});
