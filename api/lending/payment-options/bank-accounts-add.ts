import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { bankAccountSchema, newBankAccountSchema } from '../payment-option-schemas.ts';

/** `POST /PaymentOptions/BankAccounts`: adds a bank account of the customer (IBAN checked). */
export const paymentOptionsBankAccountsAddOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/BankAccounts'),
      tags: ['Payment options'],
      summary: 'Add a bank account',
      description:
        'The IBAN is checked (country format and check digits). The customer’s first payment method, or one added ' +
        'with `isDefault`, is the default. 409 `bank_account_exists` when the customer has the IBAN already.',
      security: lendingSecurity.user,
      request: { body: jsonBody(newBankAccountSchema) },
      responses: {
        201: { description: 'Added', content: { 'application/json': { schema: bankAccountSchema } } },
        ...lendingErrorResponses,
        409: {
          description: '`bank_account_exists`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      await lending.addBankAccount(c.get('deps'), {
        tenantId: c.get('lendingTenant').id,
        customerId,
        account: c.req.valid('json'),
      }),
      201,
    );
  },
});
