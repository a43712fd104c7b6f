import { z } from '@hono/zod-openapi';
import { SENDER_ID_STATUSES } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';

/**
 * What the sender-ID operations (sender-id-*.ts) share: a registration as answered, its id parameter and
 * the conflict answer. The rules are the use cases' (application/messaging/sender-id.ts).
 */

export const senderIdSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Id of the registration', example: '7d3b6a0e-4a43-4f0b-9a55-1f1b3c0b7f21' }),
    senderId: z.string().openapi({ description: 'The sender as it appears on the handset', example: 'ACME' }),
    description: z.string().nullable().openapi({ example: 'Order notifications' }),
    status: z.enum(SENDER_ID_STATUSES).openapi({
      description:
        'pending → confirmed (POST /senderId/confirm/{id}) → approved or rejected by an operator; ' +
        'pending or confirmed → expired when the confirmation or the decision does not come in time. ' +
        'Only an approved sender ID may be used as `from`.',
    }),
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
    expiresAt: z
      .string()
      .openapi({ description: 'A pending registration must be confirmed before this time' }),
    confirmedAt: z.string().nullable(),
    decidedAt: z.string().nullable().openapi({ description: 'When an operator approved or rejected it' }),
    decisionReason: z
      .string()
      .nullable()
      .openapi({ description: "The operator's reason", example: 'Trading name verified' }),
  })
  .openapi('SenderId');

export const conflictResponse = {
  description: 'Conflict; `code` says which',
  content: errorResponses[400].content,
};
export const idParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });
