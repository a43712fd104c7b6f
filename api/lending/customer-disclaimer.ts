import { createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { type LendingDisclaimerSettings, lendingTenants } from '../../db/schema/lending.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { lendingPath } from './paths.ts';

export const disclaimerSchema = z
  .object({
    required: z.boolean().openapi({ description: 'Whether a self-registered customer must confirm it' }),
    version: z.string().openapi({ example: '1' }),
    text: z.string(),
  })
  .openapi('DisclaimerSettings');

export async function disclaimerOf(db: Database, tenantId: string): Promise<LendingDisclaimerSettings> {
  const [row] = await db
    .select({ disclaimer: lendingTenants.disclaimer })
    .from(lendingTenants)
    .where(eq(lendingTenants.id, tenantId));
  return row!.disclaimer;
}

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
  handler: () => async (c) => c.json(await disclaimerOf(c.get('deps').db, c.get('lendingTenant').id), 200),
});
