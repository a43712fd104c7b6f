import { createRoute, z } from '@hono/zod-openapi';
import { and, count, desc, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { obHooks } from '../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { bulkRecordSchema, entryCountsOf, toBulkRecord } from './bulk-payment-records.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';

/**
 * `GET /api/8/bulk-payments/status/{hookHash}`: the bulks started with a hook of the agent, newest
 * first, each with its overall status and entry counts. A hook of another agent is 404.
 */

const MAX_BULKS = 50;

const answerSchema = z
  .object({
    hookHash: z.string(),
    total: z.number().int().openapi({ description: 'Bulks started with this hook' }),
    bulks: z.array(bulkRecordSchema).openapi({ description: `The newest ${MAX_BULKS}, newest first` }),
  })
  .openapi('BulkPaymentStatus');

export const bulkPaymentsStatusOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/bulk-payments/status/{hookHash}',
      operationId: 'bulkPaymentStatus',
      tags: ['Bulk payments'],
      summary: 'Status of the bulk payments of a hook',
      description:
        'A hook hash may be passed to several bulks: this answers every bulk started with it (the newest ' +
        `${MAX_BULKS}), newest first, with the overall status and how many entries are confirmed, failed and ` +
        'waiting. The entries themselves: POST bulk-payments/search. Unknown hook, or another agent’s: 404.',
      security: AGENT_SECURITY,
      request: {
        params: z.object({
          hookHash: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'hookHash', in: 'path' }, example: 'hook_Xc2…' }),
        }),
      },
      responses: {
        200: {
          description: 'The bulks of the hook',
          content: { 'application/json': { schema: answerSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { hookHash } = c.req.valid('param');
    const { db } = c.get('deps');
    const [hook] = await db
      .select({ hookHash: obHooks.hookHash })
      .from(obHooks)
      .where(and(eq(obHooks.hookHash, hookHash), eq(obHooks.agentId, agentId)))
      .limit(1);
    if (!hook) throw Refusal.notFound('Hook');
    const where = and(eq(obBulkPayments.hookHash, hookHash), eq(obBulkPayments.agentId, agentId));
    const [rows, [total]] = await Promise.all([
      db
        .select()
        .from(obBulkPayments)
        .where(where)
        .orderBy(desc(obBulkPayments.createdAt), desc(obBulkPayments.id))
        .limit(MAX_BULKS),
      db.select({ value: count() }).from(obBulkPayments).where(where),
    ]);
    const counts = await entryCountsOf(
      db,
      rows.map((row) => row.id),
    );
    return c.json(
      { hookHash, total: total?.value ?? 0, bulks: rows.map((row) => toBulkRecord(row, counts.get(row.id))) },
      200,
    );
  },
});
