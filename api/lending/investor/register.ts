import { createRoute, z } from '@hono/zod-openapi';
import { registerInvestor } from '../../../application/lending/investors.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorDetailsSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';
import { loginParameter, newPasswordParameter, userTokenAnswer, userTokenSchema } from '../user-schemas.ts';

/**
 * `POST /Investor/Register?login=&password=`: creates an investor account in the key's tenant and
 * answers its user token (as Customer/Register does); personal details may come as a JSON body.
 */
export const investorRegisterOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Investor/Register'),
      tags: ['Investor'],
      summary: 'Register an investor',
      description:
        'Creates an investor account (login and password) and answers its `lender_UserAuthToken`, which acts on ' +
        'Investor/* only (a customer’s token is refused there, and an investor’s on Customer/*). An optional JSON ' +
        'body gives personal details. 409 `login_taken` when the login is in use in this tenant.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({ login: loginParameter, password: newPasswordParameter }),
        body: { required: false, content: { 'application/json': { schema: investorDetailsSchema } } },
      },
      responses: {
        201: { description: 'Registered', content: { 'application/json': { schema: userTokenSchema } } },
        ...lendingErrorResponses,
        409: { description: '`login_taken`', content: { 'application/json': { schema: errorBodySchema } } },
      },
    }),
  handler: () => async (c) => {
    const { login, password } = c.req.valid('query');
    const { issued, userId } = await registerInvestor(c.get('deps'), c.get('lendingTenant').id, {
      login,
      password,
      details: c.req.valid('json') ?? {},
    });
    return c.json(userTokenAnswer(issued, { id: userId, role: 'investor' }), 201);
  },
});
