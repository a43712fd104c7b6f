import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { withNotifiedCardToken } from '../../credentials/collect/card-tokens.ts';
import { loadMerchant } from '../../credentials/collect/merchants.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectNotificationAttempts, collectNotifications } from '../../db/schema/collect-notifications.ts';
import { verifyChecksum } from '../../domain/collect/checksum.ts';
import { CollectProtocolError, missingField } from '../../domain/collect/errors.ts';
import { notifiedCard } from '../../domain/collect/notification-packet.ts';
import { decodePacket } from '../../domain/collect/packet.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/** One attempt to deliver a notification to the merchant. */
export interface NotificationAttemptView {
  attempt: number;
  attemptedAt: string;
  batchId: string;
  batchSize: number;
  httpStatus: number | null;
  reply: (typeof collectNotificationAttempts.$inferSelect)['reply'];
  latencyMs: number;
  error: string | null;
}

type Notification = typeof collectNotifications.$inferSelect;

/** A notification of an INVOICE, as its merchant reads it. */
export interface NotificationView {
  invoice: string;
  idn: string;
  status: Notification['status'];
  payTime: string | null;
  stan: string | null;
  bcode: string | null;
  card: ReturnType<typeof notifiedCard> | null;
  delivery: Notification['delivery'];
  attemptCount: number;
  createdAt: string;
  nextAttemptAt: string | null;
  completedAt: string | null;
  attempts: NotificationAttemptView[];
}

/**
 * The notifications of one INVOICE (oldest first) and every attempt of them, for the merchant that
 * authenticates like every ENCODED endpoint (ENCODED with MIN and INVOICE, CHECKSUM keyed with the secret).
 */
export async function merchantNotifications(
  deps: UseCaseDeps,
  { encoded, checksum }: { encoded: string | undefined; checksum: string | undefined },
): Promise<{ invoice: string; notifications: NotificationView[] }> {
  const { db, config } = deps;
  if (!encoded) throw missingField('ENCODED');
  if (!checksum) throw missingField('CHECKSUM');
  const packet = decodePacket(encoded);
  const min = packet.MIN;
  const invoice = packet.INVOICE;
  if (!min) throw missingField('MIN');
  if (!invoice) throw missingField('INVOICE');
  const merchant = await loadMerchant(db, config, min);
  if (!merchant) throw new CollectProtocolError('UNKNOWN_MERCHANT', `no merchant ${min}`);
  if (!verifyChecksum(encoded, checksum, merchant.secret)) {
    throw new CollectProtocolError('BAD_CHECKSUM', 'CHECKSUM does not match ENCODED');
  }
  const rows = await db
    .select()
    .from(collectNotifications)
    .where(and(eq(collectNotifications.merchantMin, min), eq(collectNotifications.invoice, invoice)))
    .orderBy(asc(collectNotifications.createdAt));
  const attempts =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(collectNotificationAttempts)
          .where(
            inArray(
              collectNotificationAttempts.notificationId,
              rows.map((row) => row.id),
            ),
          )
          .orderBy(desc(collectNotificationAttempts.attempt));
  const iso = (value: Date | null) => value?.toISOString() ?? null;
  return {
    invoice,
    notifications: rows.map((row) => ({
      invoice: row.invoice,
      idn: row.idn,
      status: row.status,
      payTime: row.payTime,
      stan: row.stan,
      bcode: row.bcode,
      card: notifiedCard(withNotifiedCardToken(collectSecretKey(config), row)) ?? null,
      delivery: row.delivery,
      attemptCount: row.attemptCount,
      createdAt: row.createdAt.toISOString(),
      nextAttemptAt: row.delivery === 'pending' ? iso(row.nextAttemptAt) : null,
      completedAt: iso(row.completedAt),
      attempts: attempts
        .filter((attempt) => attempt.notificationId === row.id)
        .sort((a, b) => a.attempt - b.attempt)
        .map((attempt) => ({
          attempt: attempt.attempt,
          attemptedAt: attempt.attemptedAt.toISOString(),
          batchId: attempt.batchId,
          batchSize: attempt.batchSize,
          httpStatus: attempt.httpStatus,
          reply: attempt.reply,
          latencyMs: attempt.latencyMs,
          error: attempt.error,
        })),
    })),
  };
}
