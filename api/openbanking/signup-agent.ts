import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { ADMIN_SECURITY, IDENTITY_HEADERS, NO_SECURITY, requireAdmin } from './identity.ts';
import { emailField } from './user-schemas.ts';

/**
 * `POST /api/{7,8}/signup/agent`: enrols an agent and returns its agent hash and public hash (shown once).
 * In the sandbox (PLATFORM_MODE=sandbox) anyone may enrol, as with a provider's self-service sandbox
 * sign-up; in production the caller must send x-admin-hash (an operator).
 */

const agentSignupBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'Name of the partner', example: 'Acme Ltd' }),
    email: emailField.optional().openapi({ description: 'Contact address of the partner' }),
  })
  .openapi('AgentSignupDTO');

const issuedAgentSchema = z
  .object({
    agentId: z
      .string()
      .openapi({ description: 'Id of the agent (not a credential)', example: 'agt_3f2a9c0d...' }),
    agentHash: z.string().openapi({
      description: 'The x-agent-hash credential; shown once, only its SHA-256 digest is stored',
      example: 'agent_q3Vb...',
    }),
    publicHash: z.string().openapi({
      description: 'The x-public-hash (public tier: createhook in version 9); shown once',
      example: 'public_8Jd0...',
    }),
    name: z.string().openapi({ example: 'Acme Ltd' }),
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
  })
  .openapi('IssuedAgent');

export const signupAgentOperation = defineOperation({
  versions: [7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/signup/agent',
      operationId: 'signupAgent',
      tags: ['Agents'],
      summary: 'Enrol an agent',
      description:
        'Creates an agent and returns its `agentHash` and `publicHash`, shown once. Sandbox: open to anyone. ' +
        'Production: requires `x-admin-hash`; without it 401.',
      security: [...NO_SECURITY, ...ADMIN_SECURITY],
      request: { body: jsonBody(agentSignupBody) },
      responses: {
        201: { description: 'Enrolled', content: { 'application/json': { schema: issuedAgentSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { config } = c.get('deps');
    if (config.PLATFORM_MODE === 'production' || c.req.header(IDENTITY_HEADERS.admin) !== undefined) {
      await requireAdmin(c);
    }
    const body = c.req.valid('json');
    if (!body) throw Refusal.field('(body)', 'required');
    return c.json(await openbanking.enrolAgent(c.get('deps'), body), 201);
  },
});
