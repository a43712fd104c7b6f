import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { bankAccountSchema } from '../payment-option-schemas.ts';
import { customerIdParams } from './customers-get.ts';

/** `GET .../BankAccounts`: the customer's live accounts, oldest first. */
export const managementBankAccountsListOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Customers/{customerId}/BankAccounts'),
      tags: ['Management'],
      summary: 'List a customer’s bank accounts',
      security: lendingSecurity.apiKey,
      request: { params: customerIdParams },
      responses: {
        200: {
          description: 'The accounts',
          content: { 'application/json': { schema: z.object({ items: z.array(bankAccountSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      {
        items: await lending.listBankAccounts(c.get('deps'), {
          tenantId: c.get('lendingTenant').id,
          customerId: c.req.valid('param').customerId,
        }),
      },
      200,
    ),
});
