import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { investorPreferencesSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/Preferences`: the authenticated investor's preferences. */
export const investorPreferencesGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/Preferences'),
      tags: ['Investor'],
      summary: 'The authenticated investor’s preferences',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The preferences',
          content: { 'application/json': { schema: investorPreferencesSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.investorPreferences(c.get('deps'), { caller: investorCaller(c) }), 200),
});
