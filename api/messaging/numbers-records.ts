import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import type { Config } from '../../platform/config.ts';

/**
 * `from` numbers as the operations see them (numbers-*.ts, a design addition beyond the spec, decision
 * 0028): the account asks for a code to be sent to a number (POST /numbers), proves it owns the number by
 * entering the code (POST /numbers/{id}/verify), and may then send `from` it. A code is valid for
 * NUMBER_VERIFICATION_TIMEOUT and NUMBER_VERIFICATION_MAX_ATTEMPTS tries; only its digest is stored.
 */

type NumberRow = typeof messagingSenderNumbers.$inferSelect;

export const senderNumberSchema = z
  .object({
    id: z.string().openapi({ example: '5b0a3c1e-2f4d-4c8e-9a7b-3d2e1f0a9b8c' }),
    number: z.string().openapi({ description: 'E.164', example: '+359888000111' }),
    status: z.enum(['pending', 'verified']).openapi({
      description:
        'pending until the code sent to the number is entered; verified numbers may be used as `from`',
    }),
    codeExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: 'The current code is accepted until this time (null once verified)' }),
    attemptsLeft: z.number().int().openapi({ description: 'Wrong codes the current code still allows' }),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
  })
  .openapi('SenderNumber');

export type SenderNumberRecord = z.infer<typeof senderNumberSchema>;

export const toNumberRecord = (row: NumberRow, config: Config): SenderNumberRecord => ({
  id: row.id,
  number: row.number,
  status: row.status,
  codeExpiresAt: row.status === 'verified' ? null : (row.codeExpiresAt?.toISOString() ?? null),
  attemptsLeft:
    row.status === 'verified' ? 0 : Math.max(0, config.NUMBER_VERIFICATION_MAX_ATTEMPTS - row.attempts),
  createdAt: row.createdAt.toISOString(),
  verifiedAt: row.verifiedAt?.toISOString() ?? null,
});

export const numberIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const alreadyVerified = (number: string) =>
  Refusal.conflict('number_already_verified', `${number} is already verified for this account`);

/** The number with this id of the account; 404 otherwise. */
export async function findOwnNumber(db: Database, accountId: string, id: string): Promise<NumberRow> {
  const [row] = await db
    .select()
    .from(messagingSenderNumbers)
    .where(and(eq(messagingSenderNumbers.id, id), eq(messagingSenderNumbers.accountId, accountId)));
  if (!row) throw Refusal.notFound('Number');
  return row;
}
