import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';

/**
 * A cash payout's recipient id (RCPT_ID: a national id or document number) is kept encrypted in the
 * obligation's details (`recipientIdSealed`): AES-256-GCM with COLLECT_SECRET_KEY, as merchant secrets
 * are (decision 0010), bound to the obligation's merchant and INVOICE, so a ciphertext copied onto
 * another payout does not open. Only the cash desk's identity check opens it; the merchant
 * notification never carries it (its packet has no recipient field). Rows written before this
 * (`recipientId` in clear) are sealed at worker start by sealClearRecipientIds and read meanwhile.
 */

const binding = (merchantMin: string, invoice: string) => `rcpt-id:${merchantMin}:${invoice}`;

/** `details` with its `recipientId` (if any) replaced by `recipientIdSealed`. */
export function sealRecipientId(
  key: Buffer,
  obligation: { merchantMin: string; invoice: string },
  details: Record<string, string>,
): Record<string, string> {
  const { recipientId, ...rest } = details;
  if (recipientId === undefined) return details;
  return {
    ...rest,
    recipientIdSealed: sealSecret(key, binding(obligation.merchantMin, obligation.invoice), recipientId),
  };
}

/** The payout's registered recipient id, opened (or as an older row keeps it in clear). */
export function recipientIdOf(
  key: Buffer,
  obligation: { merchantMin: string; invoice: string; details: Record<string, string> },
): string | undefined {
  const { recipientIdSealed, recipientId } = obligation.details;
  if (recipientIdSealed === undefined) return recipientId;
  return openSecret(
    key,
    binding(obligation.merchantMin, obligation.invoice),
    recipientIdSealed,
    `recipient id of ${obligation.merchantMin}/${obligation.invoice}`,
  );
}

/** Seals every recipient id still kept in clear (rows of an older release); answers how many. */
export async function sealClearRecipientIds(db: Database, key: Buffer): Promise<number> {
  const clear = await db
    .select({
      idn: collectObligations.idn,
      merchantMin: collectObligations.merchantMin,
      invoice: collectObligations.invoice,
      details: collectObligations.details,
    })
    .from(collectObligations)
    .where(isNotNull(sql`${collectObligations.details}->>'recipientId'`));
  for (const row of clear) {
    await db
      .update(collectObligations)
      .set({ details: sealRecipientId(key, row, row.details) })
      // Only if nobody changed it meanwhile: the clear id is still there.
      .where(
        and(
          eq(collectObligations.idn, row.idn),
          isNotNull(sql`${collectObligations.details}->>'recipientId'`),
        ),
      );
  }
  return clear.length;
}
