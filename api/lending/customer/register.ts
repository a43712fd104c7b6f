import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation } from '../auth.ts';
import { customerDetailsBody } from '../customer-schemas.ts';
import { registerRoute } from '../register-route.ts';
import { userTokenAnswer } from '../user-schemas.ts';

/**
 * `POST /Customer/Register?login=&password=`: creates a customer account in the key's tenant and
 * answers the user token. `login` and `password` are query parameters, as the spec has them; the
 * platform never logs query strings. Personal details may come along as a JSON body.
 */
export const customerRegisterOperation = defineLendingOperation({
  route: () =>
    registerRoute({
      path: '/Customer/Register',
      tag: 'Customer',
      summary: 'Register a customer',
      description:
        'Creates a customer account (login and password) and answers its `lender_UserAuthToken`. An optional ' +
        'JSON body gives personal details (CustomerDetails). 409 `login_taken` when the login is in use in this tenant.',
      details: customerDetailsBody,
    }),
  handler: () => async (c) => {
    const { login, password } = c.req.valid('query');
    const { issued, userId, customerId } = await lending.registerCustomer(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      login,
      password,
      details: c.req.valid('json') ?? {},
    });
    return c.json(userTokenAnswer(issued, { id: userId, role: 'customer', customerId }), 201);
  },
});
