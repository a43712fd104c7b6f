import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import {
  decideSenderId,
  SenderIdDecisionRefused,
  senderIdsAwaitingApproval,
} from '../../credentials/messaging/senders.ts';
import type { messagingSenderIds } from '../../db/schema/messaging.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of sender IDs (HTTP twin of `npm run admin -- messaging:sender-ids|approve|reject`,
 * decision 0028): the registrations their accounts confirmed, waiting for approval; approve or reject one
 * with a reason (shown to the account) and a note (for operators).
 */

const registrationSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    senderId: z.string(),
    description: z.string().nullable(),
    status: z.string().openapi({ example: 'confirmed' }),
    createdAt: z.string(),
    confirmedAt: z.string().nullable(),
    decidedAt: z.string().nullable(),
    decisionReason: z.string().nullable(),
    operatorNote: z.string().nullable(),
  })
  .openapi('SenderIdRegistrationForOperator');

const forOperator = (row: typeof messagingSenderIds.$inferSelect) => ({
  id: row.id,
  accountId: row.accountId,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  decisionReason: row.decisionReason,
  operatorNote: row.operatorNote,
});

const listRoute = createRoute({
  method: 'get',
  path: '/messaging/sender-ids',
  tags: ['Admin'],
  summary: 'Sender IDs waiting for approval',
  description: 'Registrations confirmed by their accounts and not yet decided, oldest confirmation first.',
  responses: {
    200: {
      description: 'Waiting registrations',
      content: { 'application/json': { schema: z.object({ items: z.array(registrationSchema) }) } },
    },
    ...errorResponses,
  },
});

const decisionBody = jsonBody(
  z.object({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .openapi({ description: 'Why; recorded and shown to the account', example: 'Trading name verified' }),
    note: z.string().max(2000).optional().openapi({ description: 'For operators only' }),
  }),
);

const decisionRoute = (decision: 'approve' | 'reject') =>
  createRoute({
    method: 'post',
    path: `/messaging/sender-ids/{id}/${decision}`,
    tags: ['Admin'],
    summary: decision === 'approve' ? 'Approve a confirmed sender ID' : 'Reject a confirmed sender ID',
    description: '409 `sender_id_not_awaiting_approval` unless the registration is confirmed and undecided.',
    request: {
      params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }),
      body: decisionBody,
    },
    responses: {
      200: { description: 'Decided', content: { 'application/json': { schema: registrationSchema } } },
      ...errorResponses,
      409: { description: 'Not waiting for approval', content: errorResponses[400].content },
    },
  });

export function registerMessagingSenderIdAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listRoute, async (c) =>
    c.json({ items: (await senderIdsAwaitingApproval(c.get('deps').db)).map(forOperator) }, 200),
  );
  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.openapi(decisionRoute(action), async (c) => {
      const { db, temporal } = c.get('deps');
      const { reason, note } = c.req.valid('json');
      try {
        const row = await decideSenderId({ db, temporal }, c.req.valid('param').id, {
          decision,
          reason,
          note,
        });
        return c.json(forOperator(row), 200);
      } catch (error) {
        if (error instanceof SenderIdDecisionRefused) {
          if (error.code === 'not_found') throw Refusal.notFound('Sender ID');
          throw Refusal.conflict(error.code, error.message);
        }
        throw error;
      }
    });
  }
}
