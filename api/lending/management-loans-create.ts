import { createRoute, z } from '@hono/zod-openapi';
import { Decimal } from 'decimal.js';
import { Refusal } from '../../application/shared/refusal.ts';
import { initialStatusOf } from '../../domain/lending/loan-lifecycle.ts';
import { schedulePosition } from '../../domain/lending/loan-process.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { calculateLoan, loanTermsBodySchema, todayUtc } from './credit-product-records.ts';
import { readCustomer } from './customer-records.ts';
import { actorOf, loanErrorResponses, loanSchema, loanView, startLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

const decimalAmount = z
  .string()
  .trim()
  .regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal amount like 1500.00');

const managementLoanBody = loanTermsBodySchema
  .omit({ startDate: true })
  .extend({
    customerId: z.string().min(1).max(100).openapi({ example: 'cus_5f1c0e2a9b7d4c3e8a6b1f20' }),
    comments: z.string().max(2000).optional(),
    disbursements: z
      .array(
        z.object({
          amount: decimalAmount.openapi({ description: 'Equal to the loan amount', example: '5000.00' }),
          date: z.iso.date().openapi({
            description: 'When it was paid out: the schedule starts then',
            example: '2026-01-15',
          }),
        }),
      )
      .max(1)
      .optional()
      .openapi({ description: 'At most one: a loan already paid out (migration)' }),
    repaidAmount: decimalAmount.optional().openapi({
      description: 'With a disbursement: what the borrower has repaid so far (default 0)',
      example: '0',
    }),
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
    const deps = c.get('deps');
    const tenant = c.get('lendingTenant');
    const body = c.req.valid('json');
    const customer = await readCustomer(deps.db, tenant.id, body.customerId);
    if (!customer) throw Refusal.field('customerId', 'no customer of this id');
    const [disbursement] = body.disbursements ?? [];
    const today = todayUtc();
    const { product, promoCode, schedule } = await calculateLoan(
      deps.db,
      tenant.id,
      { ...body, startDate: disbursement?.date ?? today },
      today,
    );
    let status = initialStatusOf('create', { detailsComplete: customer.detailsComplete });
    if (disbursement) {
      if (!new Decimal(disbursement.amount).eq(schedule.amount)) {
        throw Refusal.field('disbursements.0.amount', 'the disbursement amount must equal the loan amount');
      }
      const position = schedulePosition(schedule.instalments, body.repaidAmount ?? '0', today);
      status = initialStatusOf('createWithDisbursement', { schedule: position });
    } else if (body.repaidAmount !== undefined) {
      throw Refusal.field('repaidAmount', 'only with a disbursement');
    }
    const row = await startLoan(deps, {
      tenantId: tenant.id,
      customerId: customer.id,
      terms: { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term },
      currency: product.currency,
      secured: product.secured,
      status,
      createdBy: actorOf(c),
      comments: body.comments,
      multipleOffers: tenant.features.multipleOffers,
      ...(disbursement ? { disbursement: { amount: schedule.amount, date: disbursement.date } } : {}),
      // The workflow books it as an opening repayment (decision 0043).
      ...(disbursement && body.repaidAmount ? { repaidAmount: body.repaidAmount } : {}),
    });
    return c.json(await loanView(deps.db, row, 'management'), 201);
  },
});
