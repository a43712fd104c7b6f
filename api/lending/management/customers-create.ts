import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { normalizeLogin } from '../../../domain/lending/customers.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerDetailsBody, customerRecordSchema } from '../customer-schemas.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';
import { loginParameter } from '../user-schemas.ts';

/**
 * `POST /Management/Customers/Create` (also at the old `/Migration/Customers/Create`): registers a
 * customer with a login and details. The account has no password: the customer sets one through
 * User/RequestPasswordReset. It is not confirmed through Customer/ConfirmAccount (origin `management`).
 */
export const managementCustomersCreateOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/Customers/Create`],
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Customers/Create'),
      tags: ['Management'],
      summary: 'Create a customer',
      description:
        'Creates a customer with a login and personal details; the customer sets a password through ' +
        'User/RequestPasswordReset. 409 `login_taken` when the login is in use. Also served at ' +
        '`/Migration/Customers/Create`.',
      security: lendingSecurity.apiKey,
      request: {
        body: jsonBody(
          z
            .object({ login: loginParameter, details: customerDetailsBody.default({}) })
            .openapi('NewCustomer'),
        ),
      },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: customerRecordSchema } } },
        ...lendingErrorResponses,
        409: { description: '`login_taken`', content: { 'application/json': { schema: errorBodySchema } } },
      },
    }),
  handler: () => async (c) => {
    const { login, details } = c.req.valid('json');
    const { record } = await lending.createCustomer(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      origin: 'management',
      login: normalizeLogin(login),
      passwordHash: null,
      details,
    });
    return c.json(record, 201);
  },
});
