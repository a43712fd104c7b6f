import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { consentsRequestSchema, requestBody } from './consents-request-schemas.ts';
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
    return c.json(
      await openbanking.createConsentsRequest(c.get('deps'), { agentId, ...c.req.valid('json') }),
      201,
    );
  },
});
