import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireAgentAndUser, security } from './identity.ts';

/**
 * `DELETE /api/8/agent/user`: marks the user deleted and revokes its hashes (rows are kept), then ends its
 * consents at their banks in the background (the user-deletion workflow, `ob-user-deletion-<userId>`).
 */

export const agentUserOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'delete',
      path: '/agent/user',
      operationId: 'agentUserDelete',
      tags: ['Agent users'],
      summary: 'Mark a user as deleted',
      description:
        'Marks the user of `x-user-hash` deleted and revokes every hash of the user (they answer 401 from now on; ' +
        'user tokens too). The user’s consents are then ended at their banks in the background (TERMINATED). ' +
        'The user must be one the agent of `x-agent-hash` enrolled, else 404. The e-mail may be enrolled again ' +
        'afterwards.',
      security: security(['agentHash', 'userHash']),
      responses: { 204: { description: 'Deleted' }, ...errorResponses },
    }),
  handler: () => async (c) => {
    const user = await requireAgentAndUser(c);
    // The workflow marks the user deleted (answered here), then ends its consents at their banks.
    await openbanking.deleteUser(c.get('deps'), { user });
    return c.body(null, 204);
  },
});
