import { createRoute } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { conflictResponse, idParams, senderIdSchema } from './sender-id-schemas.ts';

/**
 * `POST /senderId/confirm/{id}`: confirms a pending registration through its workflow's update. The
 * sender ID then waits for an operator's approval before it may be used (decision 0028).
 */
export const senderIdConfirmOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/senderId/confirm/{id}',
      tags: ['Sender IDs'],
      summary: 'Confirm a sender ID',
      description:
        'Confirms a pending registration; it then waits for an operator to approve or reject it ' +
        '(`status` confirmed → approved | rejected); only an approved sender ID may be used as `from`. ' +
        '409 `sender_id_already_confirmed` or `sender_id_expired` when it is no longer pending.',
      request: { params: idParams },
      responses: {
        200: { description: 'Confirmed', content: { 'application/json': { schema: senderIdSchema } } },
        ...errorResponses,
        409: conflictResponse,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.confirmSenderId(c.get('deps'), {
        accountId: c.get('accountId'),
        id: c.req.valid('param').id,
      }),
      200,
    ),
});
