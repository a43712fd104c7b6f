import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { customerIdParams } from './customers-get.ts';

/** `DELETE .../BankAccounts/{profileId}`. */
export const managementBankAccountsDeleteOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/Management/Customers/{customerId}/BankAccounts/{profileId}'),
      tags: ['Management'],
      summary: 'Delete a customer’s bank account',
      description: 'When the default account is deleted, the oldest remaining one becomes the default.',
      security: lendingSecurity.apiKey,
      request: {
        params: customerIdParams.extend({
          profileId: z.string().min(1).max(100).openapi({ example: 'bac_9d2c4f1e0a7b4c6d8e3f2a10' }),
        }),
      },
      responses: { 204: { description: 'Deleted' }, ...lendingErrorResponses },
    }),
  handler: () => async (c) => {
    const { customerId, profileId } = c.req.valid('param');
    await lending.deleteBankAccount(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      customerId,
      profileId,
    });
    return c.body(null, 204);
  },
});
