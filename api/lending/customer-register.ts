import { createRoute, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { issueUserToken, passwordHashOf } from '../../credentials/lending/users.ts';
import { type CustomerDetails, normalizeLogin } from '../../domain/lending/customers.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { createCustomer, customerDetailsBody } from './customer-records.ts';
import { lendingPath } from './paths.ts';
import { loginParameter, newPasswordParameter, userTokenAnswer, userTokenSchema } from './user-records.ts';

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
    const { db, config } = c.get('deps');
    const tenant = c.get('lendingTenant');
    const { login, password } = c.req.valid('query');
    const details: CustomerDetails = c.req.valid('json') ?? {};
    if (normalizeLogin(password) === normalizeLogin(login))
      throw Refusal.field('password', 'must not be the login');
    const { userId, customerId } = await createCustomer(db, config, {
      tenantId: tenant.id,
      origin: 'registration',
      login: normalizeLogin(login),
      passwordHash: await passwordHashOf(password),
      details,
    });
    const issued = await issueUserToken(db, { tenantId: tenant.id, userId }, config.LENDING_USER_TOKEN_TTL);
    return c.json(userTokenAnswer(issued, { id: userId, role: 'customer', customerId }), 201);
  },
});
