import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { KYC_UPDATE_STATUSES } from '../../domain/openbanking/kyc.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { kycStatusSchema } from './kyc-status.ts';

/**
 * `POST /api/8/kyc/update`: the agent reports the outcome of its identity check of a customer (states and
 * moves: domain/openbanking/kyc.ts).
 */

const kycUpdateBody = z
  .object({
    userId: z
      .string()
      .min(1)
      .max(100)
      .openapi({ description: 'A user the agent enrolled', example: 'usr_0f8fad5b...' }),
    status: z.enum(KYC_UPDATE_STATUSES).openapi({ description: 'The new status', example: 'VERIFIED' }),
    reason: z.string().trim().min(1).max(500).optional().openapi({
      description: 'Why (e.g. the rejection reason); shown to the user by GET id/status',
      example: 'document expired',
    }),
  })
  .openapi('KycUpdateDTO');

export const kycUpdateOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/kyc/update',
      operationId: 'kycUpdate',
      tags: ['Users'],
      summary: 'Update the KYC status of a user',
      description:
        'Moves the user’s KYC status: NOT_STARTED → PENDING | VERIFIED | REJECTED, PENDING → VERIFIED | REJECTED, ' +
        'REJECTED → PENDING, VERIFIED → REJECTED. Setting the current status again is a no-op (200); any other ' +
        'move is 409 `kyc_transition_not_allowed`. Another agent’s user is 404.',
      security: AGENT_SECURITY,
      request: { body: jsonBody(kycUpdateBody) },
      responses: {
        200: { description: 'The new status', content: { 'application/json': { schema: kycStatusSchema } } },
        ...errorResponses,
        409: { description: '`kyc_transition_not_allowed`', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(await openbanking.updateKycStatus(c.get('deps'), { agentId, ...c.req.valid('json') }), 200);
  },
});
