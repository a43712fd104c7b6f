import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireAgent, security } from './identity.ts';
import { emailField, kycStatusField } from './user-schemas.ts';

/**
 * `POST /api/8/agent/user/check`: whether the agent enrolled a live user with this e-mail, and whether a
 * user hash is that user's.
 */

const checkBody = z
  .object({
    email: emailField.openapi({ description: 'E-mail the user was enrolled with' }),
    userHash: z.string().max(200).optional().openapi({
      description: 'A user hash to check: does it belong to the user with this e-mail?',
      example: 'user_Zr5c...',
    }),
  })
  .openapi('UserCheckDTO');

const checkResult = z
  .object({
    registered: z.boolean().openapi({ description: 'A live user with this e-mail is enrolled by the agent' }),
    userId: z.string().nullable(),
    kycStatus: kycStatusField.nullable(),
    createdAt: z.string().nullable(),
    hashMatches: z.boolean().nullable().openapi({
      description: 'When `userHash` was sent: whether it is a valid hash of that user; otherwise null',
    }),
  })
  .openapi('UserCheckResult');

export const agentUserCheckOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/agent/user/check',
      operationId: 'agentUserCheck',
      tags: ['Agent users'],
      summary: 'Check a user (hash) by e-mail',
      description:
        'Whether the agent has enrolled a live user with this e-mail and, when `userHash` is sent, whether that hash ' +
        'is the user’s. Hashes are stored only as digests, so a lost hash cannot be shown again.',
      security: security(['agentHash']),
      request: { body: jsonBody(checkBody) },
      responses: {
        200: { description: 'The result', content: { 'application/json': { schema: checkResult } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(await openbanking.checkUser(c.get('deps'), { agentId, ...c.req.valid('json') }), 200);
  },
});
