import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { branchOfficeSchema } from '../dictionary-schemas.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';

/** `GET /Management/BranchOffices` (also at the old `/Migration/BranchOffices`): the tenant's offices. */
export const managementBranchOfficesOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/BranchOffices`],
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/BranchOffices'),
      tags: ['Management'],
      summary: 'Branch offices',
      description: 'Also served at `/Migration/BranchOffices`.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The offices',
          content: { 'application/json': { schema: z.object({ items: z.array(branchOfficeSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      { items: await lending.branchOffices(c.get('deps'), { tenantId: c.get('lendingTenant').id }) },
      200,
    ),
});
