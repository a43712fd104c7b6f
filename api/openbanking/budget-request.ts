import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser } from './identity.ts';
import { paymentCreationRoute } from './payment-creation.ts';
import { budgetFields, budgetOf, fromAccountFields, paymentOrderBody } from './payment-schemas.ts';

/**
 * `POST /api/{6,7,8}/budget-request`: a budget payment from an added account: a payment carrying the
 * budget details (`regulatoryReportType` one of 1,2,3,4,5,6,9; `paymentCategory` six digits). Answers a
 * code; confirmed and authenticated like any other payment. How the details reach the bank:
 * domain/openbanking/payments.ts `budgetRemittance` (docs/openbanking.md).
 */
const body = paymentOrderBody
  .extend({ ...fromAccountFields, ...budgetFields })
  .openapi('BudgetPaymentFromAccount');

export const budgetRequestOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    paymentCreationRoute({
      path: '/budget-request',
      operationId: 'createBudgetPayment',
      summary: 'Create a budget payment from an added account',
      description:
        'As POST payment/iban, with the budget details: `regulatoryReportType` (1 declaration, 2 inspection act, ' +
        '3 penalty decree, 4 advance payment, 5 batch property number, 6 enforced collection order, 9 others) and ' +
        '`paymentCategory` (six digits). Each refused with a field error naming it. Answers the code.',
      body,
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const request = c.req.valid('json');
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    const payment = await openbanking.createPaymentFromAccount(c.get('deps'), {
      user,
      kind: 'budget',
      order: request,
      budget: budgetOf(request),
      origin,
    });
    return c.json(payment, 201);
  },
});
