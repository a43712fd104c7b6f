import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { investorDetailsSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/PersonalDetails`: the authenticated investor's personal details. */
export const investorPersonalDetailsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/PersonalDetails'),
      tags: ['Investor'],
      summary: 'The authenticated investor’s personal details',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The details',
          content: { 'application/json': { schema: investorDetailsSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.investorDetails(c.get('deps'), { caller: investorCaller(c) }), 200),
});
