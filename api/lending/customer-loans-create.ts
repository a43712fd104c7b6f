import { createRoute } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { offeredInState } from '../../domain/lending/credit-products.ts';
import { initialStatusOf } from '../../domain/lending/loan-lifecycle.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { calculateLoan, loanTermsBodySchema } from './credit-product-records.ts';
import { readCustomer } from './customer-records.ts';
import { actorOf, loanErrorResponses, loanSchema, loanView, startLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Customer/Loans/Create`: a loan application from terms and the Name of a credit product (or a
 * promo code standing in for it). Pre-Origination while the customer's details are incomplete, else
 * Origination (the spec's rows); one workflow per loan from here on.
 */
export const customerLoansCreateOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/Create'),
      tags: ['Customer loans'],
      summary: 'Create a loan application',
      description:
        'Creates a loan application of the authenticated customer from terms (`productName` or a promo code, ' +
        '`amount`, `term`). Its status is Pre-Origination while the customer’s details are incomplete, else Origination. ' +
        '400 names the field the product refuses (bounds in the message).',
      security: lendingSecurity.user,
      request: { body: jsonBody(loanTermsBodySchema) },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: loanSchema } } },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const deps = c.get('deps');
    const tenant = c.get('lendingTenant');
    const { customerId } = requireCustomer(c);
    const body = c.req.valid('json');
    const { product, promoCode, schedule } = await calculateLoan(deps.db, tenant.id, body);
    const customer = await readCustomer(deps.db, tenant.id, customerId);
    if (!customer) throw Refusal.notFound('Customer');
    if (tenant.features.stateManagement && !offeredInState(product, customer.details.address?.state)) {
      throw Refusal.field('productName', `${product.name} is not offered in the customer’s state`);
    }
    const row = await startLoan(deps, {
      tenantId: tenant.id,
      customerId,
      terms: { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term },
      currency: product.currency,
      secured: product.secured,
      status: initialStatusOf('create', { detailsComplete: customer.detailsComplete }),
      createdBy: actorOf(c),
      multipleOffers: tenant.features.multipleOffers,
    });
    return c.json(await loanView(deps.db, row, 'customer'), 201);
  },
});
