import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { assertOutboundUrlField } from '../../application/shared/outbound-url.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { hookSchema } from './hook-schemas.ts';
import { hookCaller, security } from './identity.ts';
import { webUrlField } from './user-schemas.ts';

/**
 * `PUT /api/{6,7,8}/redirect`: attaches to a hook the URL the user's browser is sent to when the process
 * finishes.
 */

export const redirectOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'put',
      path: '/redirect',
      operationId: 'putRedirect',
      tags: ['Hooks'],
      summary: 'Attach a redirect URL to a hook',
      description:
        'Sets the hook’s `redirectUrl` (replacing an earlier one). Only the hook’s owner may: a user its own hooks, ' +
        'an agent the hooks it registered; an unknown hook or someone else’s is 404.',
      security: security(['userHash'], ['userToken'], ['agentHash']),
      request: {
        query: z.object({
          hookhash: z
            .string()
            .min(1)
            .max(100)
            .openapi({ description: 'The hook hash', example: 'hook_Xc2...' }),
          redirectUrl: webUrlField.openapi({ example: 'https://agent.example.com/done' }),
        }),
      },
      responses: {
        200: { description: 'The hook', content: { 'application/json': { schema: hookSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const caller = await hookCaller(c, { publicHash: false });
    const { hookhash, redirectUrl } = c.req.valid('query');
    const { config } = c.get('deps');
    const hook = await openbanking.setHookRedirect(c.get('deps'), {
      caller,
      hookHash: hookhash,
      redirectUrl,
      checkUrl: (url) => assertOutboundUrlField(config, 'redirectUrl', url),
    });
    return c.json(hook, 200);
  },
});
