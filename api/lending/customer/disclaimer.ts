import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';

export const disclaimerSchema = z
  .object({
    required: z.boolean().openapi({ description: 'Whether a self-registered customer must confirm it' }),
    version: z.string().openapi({ example: '1' }),
    text: z.string(),
  })
  .openapi('DisclaimerSettings');

/** `GET /Customer/Disclaimer`: the tenant's disclaimer settings. */
export const customerDisclaimerOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Disclaimer'),
      tags: ['Customer'],
      summary: 'Disclaimer settings',
      security: lendingSecurity.apiKey,
      responses: {
        200: { description: 'The disclaimer', content: { 'application/json': { schema: disclaimerSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.disclaimerOf(c.get('deps'), { tenantId: c.get('lendingTenant').id }), 200),
});
