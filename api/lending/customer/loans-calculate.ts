import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { loanTermsBodySchema, scheduleSchema } from '../credit-product-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Customer/Loans/Calculate`: the full repayment schedule of given terms (decision 0038). A
 * calculator acts for nobody, so the key is enough (no user token): a front site shows it before sign-up.
 */
export const customerLoansCalculateOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/Calculate'),
      tags: ['Customer'],
      summary: 'Calculate a loan schedule',
      description:
        'The schedule of a loan of `amount` over `term` months under the credit product named ' +
        '`productName` (or a promo code standing in for it, whose discount then applies), from ' +
        '`startDate` (today, UTC, when left out). Exact decimal arithmetic; interest rounded half-up ' +
        'to the minor unit each month, the last instalment absorbing the rounding (decision 0038). ' +
        '400 names the field: `productName` (no such product or promo code), `amount` or `term` (outside ' +
        'the product’s bounds, given in the message), `startDate`.',
      security: lendingSecurity.apiKey,
      request: { body: jsonBody(loanTermsBodySchema) },
      responses: {
        200: { description: 'The schedule', content: { 'application/json': { schema: scheduleSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { schedule } = await lending.calculateLoan(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      terms: c.req.valid('json'),
    });
    return c.json(schedule, 200);
  },
});
