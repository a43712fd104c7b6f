import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of sender IDs (HTTP twin of `npm run admin -- messaging:sender-ids|approve|reject`,
 * decision 0028); the use cases are application/messaging/sender-id.ts.
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
    c.json({ items: await messaging.senderIdsWaitingForApproval(c.get('deps')) }, 200),
  );
  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.openapi(decisionRoute(action), async (c) => {
      const { reason, note } = c.req.valid('json');
      const decided = await messaging.decideSenderIdAsOperator(c.get('deps'), {
        id: c.req.valid('param').id,
        decision: { decision, reason, note },
      });
      return c.json(decided, 200);
    });
  }
}
