import { createRoute } from '@hono/zod-openapi';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import type { messagingSenderIds } from '../../db/schema/messaging.ts';
import {
  confirmSenderIdUpdate,
  SenderIdRefusal,
  senderIdWorkflowId,
} from '../../domain/messaging/processes.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import {
  conflictResponse,
  findOwn,
  idParams,
  type SenderIdRecord,
  senderIdSchema,
  toRecord,
} from './sender-id-records.ts';

/**
 * `POST /senderId/confirm/{id}`: confirms a pending registration through its workflow's update. The
 * sender ID then waits for an operator's approval before it may be used (decision 0028).
 */

function refuseUnlessPending(row: typeof messagingSenderIds.$inferSelect, now: Date): void {
  if (row.status === 'confirmed' || row.status === 'approved' || row.status === 'rejected') {
    throw Refusal.conflict('sender_id_already_confirmed', 'The sender ID is already confirmed');
  }
  if (row.status === 'expired' || row.expiresAt.getTime() <= now.getTime()) {
    throw Refusal.conflict('sender_id_expired', 'The sender ID registration has expired; register it again');
  }
}

async function confirm(deps: UseCaseDeps, accountId: string, id: string): Promise<SenderIdRecord> {
  const row = await findOwn(deps.db, accountId, id);
  refuseUnlessPending(row, new Date());
  try {
    const { confirmedAt } = await deps.temporal.workflow
      .getHandle(senderIdWorkflowId(id))
      .executeUpdate(confirmSenderIdUpdate);
    return { ...toRecord(row), status: 'confirmed', confirmedAt };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === SenderIdRefusal.alreadyConfirmed)
        refuseUnlessPending({ ...row, status: 'confirmed' }, new Date());
      if (error.cause.type === SenderIdRefusal.expired)
        refuseUnlessPending({ ...row, status: 'expired' }, new Date());
    }
    // The workflow has just closed (confirmed or expired meanwhile): the read model says which.
    if (error instanceof WorkflowNotFoundError)
      refuseUnlessPending(await findOwn(deps.db, accountId, id), new Date());
    throw error;
  }
}

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
    c.json(await confirm(c.get('deps'), c.get('accountId'), c.req.valid('param').id), 200),
});
