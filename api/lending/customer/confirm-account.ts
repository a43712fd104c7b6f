import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Customer/ConfirmAccount`: the customer confirms the tenant's current disclaimer. Only for a
 * customer who registered (Customer/Register); one created by management or the back office gets
 * 409 `account_not_self_registered`. Repeating it is harmless.
 */
export const customerConfirmAccountOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/ConfirmAccount'),
      tags: ['Customer'],
      summary: 'Confirm the disclaimer',
      description:
        'Records the customer’s confirmation of the current disclaimer version. 409 `account_not_self_registered` ' +
        'for an account created by management (Management/Customers/Create) or the back office.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'Confirmed',
          content: {
            'application/json': {
              schema: z
                .object({ confirmedAt: z.string(), disclaimerVersion: z.string() })
                .openapi('AccountConfirmation'),
            },
          },
        },
        ...lendingErrorResponses,
        409: {
          description: '`account_not_self_registered`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      await lending.confirmAccount(c.get('deps'), { tenantId: c.get('lendingTenant').id, customerId }),
      200,
    );
  },
});
