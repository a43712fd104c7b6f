import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation } from '../auth.ts';
import { investorDetailsSchema } from '../investor-schemas.ts';
import { registerRoute } from '../register-route.ts';
import { userTokenAnswer } from '../user-schemas.ts';

/**
 * `POST /Investor/Register?login=&password=`: creates an investor account in the key's tenant and
 * answers its user token (as Customer/Register does); personal details may come as a JSON body.
 */
export const investorRegisterOperation = defineLendingOperation({
  route: () =>
    registerRoute({
      path: '/Investor/Register',
      tag: 'Investor',
      summary: 'Register an investor',
      description:
        'Creates an investor account (login and password) and answers its `lender_UserAuthToken`, which acts on ' +
        'Investor/* only (a customer’s token is refused there, and an investor’s on Customer/*). An optional JSON ' +
        'body gives personal details. 409 `login_taken` when the login is in use in this tenant.',
      details: investorDetailsSchema,
    }),
  handler: () => async (c) => {
    const { login, password } = c.req.valid('query');
    const { issued, userId } = await lending.registerInvestor(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      login,
      password,
      details: c.req.valid('json') ?? {},
    });
    return c.json(userTokenAnswer(issued, { id: userId, role: 'investor' }), 201);
  },
});
