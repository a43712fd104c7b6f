import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds, messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { normaliseNumber } from '../../domain/messaging/phone.ts';
import { errorResponses } from '../shared/errors.ts';

/**
 * Sender IDs as the operations see them (sender-id*.ts): an account registers the name (or number) its
 * messages come from and confirms it; an operator then approves or rejects it (admin API, decision
 * 0028), and only an approved sender ID may be used as `from`. An unconfirmed registration expires after
 * SENDER_ID_CONFIRMATION_TIMEOUT, an undecided one SENDER_ID_APPROVAL_TIMEOUT after its confirmation;
 * the registration workflow (`sender-id-<id>`) owns both deadlines.
 */

export const looksNumeric = (value: string) => /^(\+|00)?\d+$/.test(value);

/**
 * Refuses `from` unless the account may send from it (decision 0028): an alphanumeric sender must be an
 * approved sender ID of the account (422 `sender_id_not_approved`); a phone number must be a number the
 * account verified (POST /numbers) or an approved numeric sender ID (422 `number_not_verified`).
 * Called by POST /sms and POST /chatapp.
 */
export async function assertUsableSender(db: Database, accountId: string, from: string): Promise<void> {
  const number = looksNumeric(from) ? normaliseNumber(from)?.e164 : undefined;
  const senderId = number ?? from;
  const [approved] = await db
    .select({ id: messagingSenderIds.id })
    .from(messagingSenderIds)
    .where(
      and(
        eq(messagingSenderIds.accountId, accountId),
        eq(messagingSenderIds.senderId, senderId),
        eq(messagingSenderIds.status, 'approved'),
      ),
    )
    .limit(1);
  if (approved) return;
  if (number) {
    const [verified] = await db
      .select({ id: messagingSenderNumbers.id })
      .from(messagingSenderNumbers)
      .where(
        and(
          eq(messagingSenderNumbers.accountId, accountId),
          eq(messagingSenderNumbers.number, number),
          eq(messagingSenderNumbers.status, 'verified'),
        ),
      )
      .limit(1);
    if (verified) return;
    const message = `${number} is not a verified number of this account; prove it with POST /numbers and POST /numbers/{id}/verify`;
    throw new Refusal(422, 'number_not_verified', message, [{ field: 'from', message }]);
  }
  const message = `"${from}" is not an approved sender ID of this account; register it with POST /senderId, confirm it and wait for an operator's approval`;
  throw new Refusal(422, 'sender_id_not_approved', message, [{ field: 'from', message }]);
}

export const SENDER_ID_STATUSES = ['pending', 'confirmed', 'approved', 'rejected', 'expired'] as const;

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

export type SenderIdRecord = z.infer<typeof senderIdSchema>;

export const toRecord = (row: typeof messagingSenderIds.$inferSelect): SenderIdRecord => ({
  id: row.id,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  decisionReason: row.decisionReason ?? null,
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
  if (!row) throw Refusal.notFound('Sender ID');
  return row;
}
