import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';

/**
 * Sender IDs as the operations see them (sender-id*.ts): an account registers the name (or number) its
 * messages come from, confirms it, and only then may send from an alphanumeric sender. An unconfirmed
 * registration expires after SENDER_ID_CONFIRMATION_TIMEOUT; the registration workflow
 * (`sender-id-<id>`) owns that deadline.
 */

export const looksNumeric = (value: string) => /^(\+|00)?\d+$/.test(value);

/**
 * Refuses `from` when it is an alphanumeric sender that is not a confirmed sender ID of the account.
 * Phone-number senders need no registration. Called by POST /sms and POST /chatapp.
 */
export async function assertUsableSender(db: Database, accountId: string, from: string): Promise<void> {
  if (looksNumeric(from)) return;
  const [confirmed] = await db
    .select({ id: messagingSenderIds.id })
    .from(messagingSenderIds)
    .where(
      and(
        eq(messagingSenderIds.accountId, accountId),
        eq(messagingSenderIds.senderId, from),
        eq(messagingSenderIds.status, 'confirmed'),
      ),
    )
    .limit(1);
  if (!confirmed) {
    const message = `"${from}" is not a confirmed sender ID of this account; register it with POST /senderId and confirm it`;
    throw new ApiError(422, 'sender_id_not_confirmed', message, [{ field: 'from', message }]);
  }
}

export const senderIdSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Id of the registration', example: '7d3b6a0e-4a43-4f0b-9a55-1f1b3c0b7f21' }),
    senderId: z.string().openapi({ description: 'The sender as it appears on the handset', example: 'ACME' }),
    description: z.string().nullable().openapi({ example: 'Order notifications' }),
    status: z.enum(['pending', 'confirmed', 'expired']).openapi({
      description:
        'pending → confirmed (POST /senderId/confirm/{id}), or pending → expired when not confirmed in time',
    }),
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
    expiresAt: z
      .string()
      .openapi({ description: 'A pending registration must be confirmed before this time' }),
    confirmedAt: z.string().nullable(),
  })
  .openapi('SenderId');

export type SenderIdRecord = z.infer<typeof senderIdSchema>;

export const toRecord = (row: typeof messagingSenderIds.$inferSelect): SenderIdRecord => ({
  id: row.id,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
});

export const conflictResponse = {
  description: 'Conflict; `code` says which',
  content: errorResponses[400].content,
};
export const idParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

/** The registration with this id of the account; 404 otherwise. */
export async function findOwn(db: Database, accountId: string, id: string) {
  const [row] = await db
    .select()
    .from(messagingSenderIds)
    .where(and(eq(messagingSenderIds.id, id), eq(messagingSenderIds.accountId, accountId)));
  if (!row) throw ApiError.notFound('Sender ID');
  return row;
}
