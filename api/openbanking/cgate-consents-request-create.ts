import { createRoute } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { resolveUserHash } from '../../credentials/openbanking/identity.ts';
import { obConsentsRequests } from '../../db/schema/openbanking.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { consentsRequestSchema, requestBody, toRecord } from './consents-request-records.ts';
import { requireAdmin, requireAgent, security } from './identity.ts';

/** `POST /api/cgate/consents-request`: an operator asks one of an agent's users for a consent. */

export const cgateConsentsRequestCreateOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/api/cgate/consents-request',
      operationId: 'cgateCreateConsentsRequest',
      tags: ['Consents requests'],
      summary: 'Ask a user to grant a consent (admin)',
      description:
        'Needs both `x-admin-hash` (the operator) and `x-agent-hash` (the agent acting); the user must be one the agent ' +
        'enrolled, else 404. Open until a consent covering its banks and scopes completes.',
      security: security(['adminHash', 'agentHash']),
      request: { body: jsonBody(requestBody) },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: consentsRequestSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    await requireAdmin(c);
    const { agentId } = await requireAgent(c);
    const { db } = c.get('deps');
    const body = c.req.valid('json');
    const user = await resolveUserHash(db, body.userHash);
    if (!user || user.agentId !== agentId) throw Refusal.notFound('User');
    const [row] = await db
      .insert(obConsentsRequests)
      .values({
        id: newId('cgr'),
        agentId,
        userId: user.userId,
        banks: [...new Set(body.banks)],
        scopes: [...new Set(body.scopes)],
        message: body.message ?? null,
        status: 'open',
      })
      .returning();
    return c.json(toRecord(row!), 201);
  },
});
