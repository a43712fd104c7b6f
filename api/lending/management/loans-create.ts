import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { decimalAmount } from '../../../domain/decimal-amount.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { loanTermsBodySchema } from '../credit-product-schemas.ts';
import { loanErrorResponses, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';
import { pointOfSaleBodyFields } from '../reference-data-schemas.ts';

const disbursedAmount = decimalAmount({ decimals: 6, example: '1500.00' });

const managementLoanBody = loanTermsBodySchema
  .omit({ startDate: true })
  .extend({
    customerId: z.string().min(1).max(100).openapi({ example: 'cus_5f1c0e2a9b7d4c3e8a6b1f20' }),
    comments: z.string().max(2000).optional(),
    disbursements: z
      .array(
        z.object({
          amount: disbursedAmount.openapi({ description: 'Equal to the loan amount', example: '5000.00' }),
          date: z.iso.date().openapi({
            description: 'When it was paid out: the schedule starts then',
            example: '2026-01-15',
          }),
        }),
      )
      .max(1)
      .optional()
      .openapi({ description: 'At most one: a loan already paid out (migration)' }),
    repaidAmount: decimalAmount({ decimals: 6, min: 'non-negative', example: '0' }).optional().openapi({
      description: 'With a disbursement: what the borrower has repaid so far (default 0)',
      example: '0',
    }),
    ...pointOfSaleBodyFields,
  })
  .openapi('ManagementLoanCreate');

/**
 * `POST /Management/Loans` (and its old URL `/Migration/Loans/Create`): creates a loan for a customer.
 * Without a disbursement like the customer's Create (Pre-Origination or Origination by the customer's
 * details); with one disbursement the loan is already paid out and its status is decided by its
 * schedule (starting on the disbursement date), the amount repaid and today: Repaid when the repaid
 * amount covers everything payable, Past Due when it does not cover what fell due before today, else
 * Active (design of the spec's "Active, Past Due or Repaid").
 */
export const managementLoansCreateOperation = defineLendingOperation({
  aliases: [lendingPath('/Migration/Loans/Create')],
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans'),
      tags: ['Management loans'],
      summary: 'Create a loan',
      description:
        'Creates a loan of `customerId`. Without `disbursements`: Pre-Origination or Origination (the customer’s ' +
        'details). With one disbursement (its amount equal to the loan amount): Active, Past Due or Repaid by the ' +
        'schedule from the disbursement date, `repaidAmount` and today. Also served at /Migration/Loans/Create.',
      security: lendingSecurity.apiKey,
      request: { body: jsonBody(managementLoanBody) },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: loanSchema } } },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const caller = managementCaller(c);
    const view = await lending.createLoanForCustomer(c.get('deps'), {
      tenant: c.get('lendingTenant'),
      caller,
      loan: c.req.valid('json'),
    });
    return c.json(view, 201);
  },
});
