import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { coApplicantSchema, loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `PUT /Customer/Loans/{loanId}/CoApplicant`: sets the co-applicant. Before a decision the status stays;
 * in Offer confirmation or Waiting for approval the loan goes to Reprocessing (design).
 */
export const coApplicantPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Customer/Loans/{loanId}/CoApplicant'),
      tags: ['Customer loans'],
      summary: 'Update the co-applicant',
      description:
        'Replaces the co-applicant. Allowed in Pre-Origination, Origination, Reprocessing and Collateral (status ' +
        'unchanged), and in Offer confirmation and Waiting for approval (→ Reprocessing); else 409 `invalid_loan_status`.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, body: jsonBody(coApplicantSchema) },
      responses: loanAnswer('The loan with its co-applicant'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(
      await lending.updateCoApplicant(c.get('deps'), {
        caller: customerCaller(c),
        loanId,
        coApplicant: c.req.valid('json'),
      }),
      200,
    );
  },
});
