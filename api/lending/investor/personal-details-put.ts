import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { investorDetailsSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `PUT /Investor/PersonalDetails`: replaces the investor's personal details (a field left out is cleared). */
export const investorPersonalDetailsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Investor/PersonalDetails'),
      tags: ['Investor'],
      summary: 'Update the authenticated investor’s personal details',
      description:
        'Replaces the personal details (PUT: a field left out is cleared); unknown fields are refused.',
      security: lendingSecurity.user,
      request: { body: jsonBody(investorDetailsSchema) },
      responses: {
        200: { description: 'Updated', content: { 'application/json': { schema: investorDetailsSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.updateInvestorDetails(c.get('deps'), {
        caller: investorCaller(c),
        details: c.req.valid('json'),
      }),
      200,
    ),
});
