import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { loanAnswer } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Management/Loans/Disbursements`: registers the disbursement of an Approved loan (paid out
 * outside the platform); its amount must equal the loan amount. The loan becomes Active (design).
 */
export const managementLoansDisbursementsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/Disbursements'),
      tags: ['Management loans'],
      summary: 'Register a disbursement',
      description:
        'Only for an Approved loan (else 409 `invalid_loan_status`) and with the amount equal to the loan amount ' +
        '(else 400 `disbursement_amount_mismatch` naming `amount`). The loan becomes Active.',
      security: lendingSecurity.apiKey,
      request: {
        body: jsonBody(
          z
            .object({
              loanId: z.string().min(1).max(40).openapi({ example: '482913675' }),
              amount: z
                .string()
                .trim()
                .regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal amount like 1500.00')
                .openapi({ example: '5000.00' }),
              date: z.iso
                .date()
                .optional()
                .openapi({ description: 'Paid out on (default today, UTC)', example: '2026-03-10' }),
            })
            .openapi('DisbursementRegistration'),
        ),
      },
      responses: loanAnswer('The loan, Active'),
    }),
  handler: () => async (c) => {
    return c.json(
      await lending.registerDisbursement(c.get('deps'), {
        caller: managementCaller(c),
        ...c.req.valid('json'),
      }),
      200,
    );
  },
});
