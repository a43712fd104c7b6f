import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { bankAccountSchema } from '../payment-option-schemas.ts';

/** `GET /PaymentOptions/BankAccounts`: the customer's own bank accounts, oldest first. */
export const paymentOptionsBankAccountsListOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/PaymentOptions/BankAccounts'),
      tags: ['Payment options'],
      summary: 'List my bank accounts',
      description:
        'The bank accounts of the customer of the user token (the same records as ' +
        'Management/Customers/{customerId}/BankAccounts); `profileId` is the account’s payment method id.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The accounts',
          content: { 'application/json': { schema: z.object({ items: z.array(bankAccountSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      {
        items: await lending.listBankAccounts(c.get('deps'), {
          tenantId: c.get('lendingTenant').id,
          customerId,
        }),
      },
      200,
    );
  },
});
