import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { decimalAmount } from '../../../domain/decimal-amount.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

export const collateralBodySchema = z
  .object({
    kind: z.string().trim().min(1).max(50).openapi({ example: 'vehicle' }),
    description: z.string().trim().min(1).max(1000).openapi({ example: 'Toyota Corolla 2019' }),
    value: decimalAmount({ decimals: 6, min: 'non-negative', example: '9500.00' }).openapi({
      description: 'Estimated value, in the loan’s currency',
      example: '9500.00',
    }),
  })
  .strict()
  .openapi('CollateralInput');

/**
 * `POST /Customer/Loans/{loanId}/Collaterals`: registers a collateral (its id is in the answer's
 * `collaterals`). Before a decision the status stays; in Offer confirmation or Waiting for approval the
 * loan goes to Reprocessing (design).
 */
export const collateralsAddOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Collaterals'),
      tags: ['Customer loans'],
      summary: 'Add a collateral',
      description:
        'Allowed in Pre-Origination, Origination, Reprocessing and Collateral (status unchanged), and in Offer ' +
        'confirmation and Waiting for approval (→ Reprocessing); else 409 `invalid_loan_status`. A secured loan in ' +
        'Collateral is processed once it has a collateral.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, body: jsonBody(collateralBodySchema) },
      responses: loanAnswer('The loan with the collateral'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(
      await lending.addCollateral(c.get('deps'), {
        caller: customerCaller(c),
        loanId,
        collateral: c.req.valid('json'),
      }),
      200,
    );
  },
});
