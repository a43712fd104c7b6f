import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { investorPreferencesSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `PUT /Investor/Preferences`: replaces the preferences that filter the investor's Opportunities. */
export const investorPreferencesPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Investor/Preferences'),
      tags: ['Investor'],
      summary: 'Update the authenticated investor’s preferences',
      description:
        'Replaces the preferences (a bound left out is no bound): loan amount and term ranges and credit products ' +
        'filter Opportunities; `maxBid` caps each bid. A range the wrong way round is refused naming its upper bound.',
      security: lendingSecurity.user,
      request: { body: jsonBody(investorPreferencesSchema) },
      responses: {
        200: {
          description: 'Updated',
          content: { 'application/json': { schema: investorPreferencesSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.updateInvestorPreferences(c.get('deps'), {
        caller: investorCaller(c),
        preferences: c.req.valid('json'),
      }),
      200,
    ),
});
