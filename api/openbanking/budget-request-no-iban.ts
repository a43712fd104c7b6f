import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser } from './identity.ts';
import { paymentCreationRoute } from './payment-creation.ts';
import { budgetFields, budgetOf, directFields, paymentOrderBody } from './payment-schemas.ts';

/**
 * `POST /api/{7,8}/budget-request/no-iban`: a budget payment from an IBAN the user names at a bank,
 * without adding the account first (no consent). The user authenticates the payment at the bank.
 */
const body = paymentOrderBody.extend({ ...directFields, ...budgetFields }).openapi('BudgetPaymentDirect');

export const budgetRequestNoIbanOperation = defineOperation({
  versions: [7, 8],
  route: () =>
    paymentCreationRoute({
      path: '/budget-request/no-iban',
      operationId: 'createBudgetPaymentDirect',
      summary: 'Create a budget payment without an added account',
      description:
        'As POST budget-request, from `debtorIban` at `bankHash` instead of an added account. Answers the code; ' +
        'confirm with POST/PUT payment.',
      body,
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const request = c.req.valid('json');
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    const payment = await openbanking.createDirectPayment(c.get('deps'), {
      user,
      kind: 'budget_no_iban',
      order: request,
      budget: budgetOf(request),
      origin,
    });
    return c.json(payment, 201);
  },
});
