import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { bankAccountSchema, newBankAccountSchema } from '../payment-option-schemas.ts';
import { customerIdParams } from './customers-get.ts';

/** `POST .../BankAccounts`: adds an account (IBAN checked); the first is the default. */
export const managementBankAccountsCreateOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Customers/{customerId}/BankAccounts'),
      tags: ['Management'],
      summary: 'Add a bank account to a customer',
      description:
        'The IBAN is checked (country format and check digits). The first account, or one with `isDefault`, is the ' +
        'default. 409 `bank_account_exists` when the customer has the IBAN already.',
      security: lendingSecurity.apiKey,
      request: { params: customerIdParams, body: jsonBody(newBankAccountSchema) },
      responses: {
        201: { description: 'Added', content: { 'application/json': { schema: bankAccountSchema } } },
        ...lendingErrorResponses,
        409: {
          description: '`bank_account_exists`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.addBankAccount(c.get('deps'), {
        tenantId: c.get('lendingTenant').id,
        customerId: c.req.valid('param').customerId,
        account: c.req.valid('json'),
      }),
      201,
    ),
});
