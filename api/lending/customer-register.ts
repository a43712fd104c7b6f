import { createRoute, z } from '@hono/zod-openapi';
import { registerCustomer } from '../../application/lending/customers.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { customerDetailsBody } from './customer-schemas.ts';
import { lendingPath } from './paths.ts';
import { loginParameter, newPasswordParameter, userTokenAnswer, userTokenSchema } from './user-schemas.ts';

/**
 * `POST /Customer/Register?login=&password=`: creates a customer account in the key's tenant and
 * answers the user token. `login` and `password` are query parameters, as the spec has them; the
 * platform never logs query strings. Personal details may come along as a JSON body.
 */
export const customerRegisterOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Register'),
      tags: ['Customer'],
      summary: 'Register a customer',
      description:
        'Creates a customer account (login and password) and answers its `lender_UserAuthToken`. An optional ' +
        'JSON body gives personal details (CustomerDetails). 409 `login_taken` when the login is in use in this tenant.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({ login: loginParameter, password: newPasswordParameter }),
        body: { required: false, content: { 'application/json': { schema: customerDetailsBody } } },
      },
      responses: {
        201: { description: 'Registered', content: { 'application/json': { schema: userTokenSchema } } },
        ...lendingErrorResponses,
        409: { description: '`login_taken`', content: { 'application/json': { schema: errorBodySchema } } },
      },
    }),
  handler: () => async (c) => {
    const { login, password } = c.req.valid('query');
    const { issued, userId, customerId } = await registerCustomer(c.get('deps'), c.get('lendingTenant').id, {
      login,
      password,
      details: c.req.valid('json') ?? {},
    });
    return c.json(userTokenAnswer(issued, { id: userId, role: 'customer', customerId }), 201);
  },
});
