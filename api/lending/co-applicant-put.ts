import { createRoute } from '@hono/zod-openapi';
import { updateCoApplicantUpdate } from '../../domain/lending/loan-process.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import {
  actorOf,
  coApplicantSchema,
  customerLoan,
  loanAnswer,
  loanIdParams,
  loanView,
  moveLoan,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const coApplicant = c.req.valid('json');
    const moved = await moveLoan(c.get('deps'), row, 'updateCoApplicant', (loan) =>
      loan.executeUpdate(updateCoApplicantUpdate, { args: [{ by: actorOf(c), coApplicant }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
