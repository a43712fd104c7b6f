import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanTermsBodySchema } from '../credit-product-schemas.ts';
import { loanErrorResponses, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';
import { pointOfSaleBodyFields } from '../reference-data-schemas.ts';

const customerLoanBody = loanTermsBodySchema.extend(pointOfSaleBodyFields).openapi('CustomerLoanCreate');

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
        '400 names the field the product refuses (bounds in the message). `vendorId` and `storeId` name where the ' +
        'loan is sold (Vendors/*): 400 names either when it is not an active vendor, or store of that vendor, of the tenant.',
      security: lendingSecurity.user,
      request: { body: jsonBody(customerLoanBody) },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: loanSchema } } },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const caller = customerCaller(c);
    const view = await lending.applyForLoan(c.get('deps'), {
      tenant: c.get('lendingTenant'),
      caller,
      terms: c.req.valid('json'),
    });
    return c.json(view, 201);
  },
});
