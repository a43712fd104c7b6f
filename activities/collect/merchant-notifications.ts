import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { sealNotifiedCardToken, withNotifiedCardToken } from '../../credentials/collect/card-tokens.ts';
import { loadMerchant } from '../../credentials/collect/merchants.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectSigningKey, signNotification } from '../../credentials/collect/signing-key.ts';
import type { Database } from '../../db/client.ts';
import { collectNotificationAttempts, collectNotifications } from '../../db/schema/collect-notifications.ts';
import { computeChecksum } from '../../domain/collect/checksum.ts';
import {
  cardExpiryText,
  type NotificationAttemptOutcome,
  type NotificationReplyStatus,
  notificationPacket,
  notifiedCard,
  parseNotificationReply,
} from '../../domain/collect/notification-packet.ts';
import {
  type MerchantNotification,
  type MerchantNotificationsInput,
  merchantNotificationsWorkflowId,
  notificationQueuedSignal,
} from '../../domain/collect/processes.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { deliveryTaskQueue } from '../../domain/task-queues.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { describeFetchError, outboundFetchFor, refusedByPolicy } from '../../platform/outbound-http.ts';

export interface MerchantNotificationActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  /** Outbound HTTP; defaults to fetch under the outbound-URL policy (decision 0027). */
  fetch?: typeof fetch;
}

/**
 * The same status change of the same invoice is always the same notification (and row); after a
 * payment was taken back (decision 0063) the round tells a second PAID from the first. Round 0 keeps the
 * ids of before.
 */
export function notificationId(merchantMin: string, invoice: string, status: string, round = 0): string {
  const change = `${merchantMin}\n${invoice}\n${status}${round > 0 ? `\n${round}` : ''}`;
  return `ntf_${createHash('sha256').update(change).digest('hex').slice(0, 24)}`;
}

/** CHECKSUM of a notification: lowercase hex HMAC-SHA1 of ENCODED keyed with the merchant secret. */
export const notificationChecksum = (secret: string, encoded: string) => computeChecksum(encoded, secret);

export interface BatchItem {
  notificationId: string;
  /** 1 for the first attempt of this notification. */
  attempt: number;
}

export interface BatchItemOutcome {
  notificationId: string;
  outcome: NotificationAttemptOutcome;
  retryAfterMs: number | null;
  /**
   * The outbound-URL policy refused the merchant's URL (as the webhook engine's attempts): no later
   * attempt can succeed, so the notification fails now. Absent in outcomes recorded before it existed.
   */
  permanent?: boolean;
}

/** A reply body larger than this is not read further (a notification reply is a few lines). */
const MAX_REPLY_BYTES = 256 * 1024;

function retryAfterOf(value: string | null): number | null {
  if (!value || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim()) * 1000;
}

/**
 * Activities of merchant notification delivery. HTTP outcomes are returned, never thrown: the
 * per-merchant workflow owns the retry schedule; activity retries only cover our own infrastructure.
 */
export function createMerchantNotificationActivities(deps: MerchantNotificationActivityDeps) {
  const { db, config, logger } = deps;
  const send = deps.fetch ?? outboundFetchFor(config);

  return {
    /**
     * Records one status change (insert-if-absent: a repeated call changes nothing) and hands it to the
     * merchant's notification workflow, starting that workflow when it is not running.
     */
    async queueMerchantNotification(
      notification: MerchantNotification,
    ): Promise<{ notificationId: string; delivery: string }> {
      const round = notification.round ?? 0;
      const id = notificationId(notification.merchantMin, notification.invoice, notification.status, round);
      const merchant = await loadMerchant(db, config, notification.merchantMin);
      if (!merchant)
        logger.warn({ merchant: notification.merchantMin }, 'notification for an unknown merchant');
      await db
        .insert(collectNotifications)
        .values({
          id,
          merchantMin: notification.merchantMin,
          invoice: notification.invoice,
          idn: notification.idn,
          status: notification.status,
          round,
          payTime: notification.payTime ?? null,
          stan: notification.stan ?? null,
          bcode: notification.bcode ?? null,
          amountMinor: notification.amountMinor ?? null,
          ...(notification.savedCard
            ? {
                cardToken: sealNotifiedCardToken(
                  collectSecretKey(config),
                  id,
                  notification.savedCard.cardToken,
                ),
                cardBrand: notification.savedCard.brand,
                cardLast4: notification.savedCard.last4,
                cardExpiry: cardExpiryText(
                  notification.savedCard.expiryMonth,
                  notification.savedCard.expiryYear,
                ),
              }
            : {}),
          delivery: merchant?.notifyUrl ? 'pending' : 'no_url',
          completedAt: merchant?.notifyUrl ? null : new Date(),
        })
        .onConflictDoNothing();
      const [row] = await db
        .select({ delivery: collectNotifications.delivery })
        .from(collectNotifications)
        .where(eq(collectNotifications.id, id));
      if (!row) throw new Error(`notification ${id} vanished after insert`);
      if (row.delivery === 'pending') {
        // Signal-with-start is atomic: the merchant's workflow runs and has the notification queued.
        // On the delivery lane (decision 0024): an obligation storm on the business lane cannot hold it.
        await Context.current().client.workflow.signalWithStart('merchantNotifications', {
          workflowId: merchantNotificationsWorkflowId(notification.merchantMin),
          taskQueue: deliveryTaskQueue(config.TEMPORAL_TASK_QUEUE),
          args: [
            {
              merchantMin: notification.merchantMin,
              retryScheduleMs: config.COLLECT_NOTIFY_RETRY_SCHEDULE,
              requestTimeoutMs: config.COLLECT_NOTIFY_REQUEST_TIMEOUT,
              batchWindowMs: config.COLLECT_NOTIFY_BATCH_WINDOW,
              batchSize: config.COLLECT_NOTIFY_BATCH_SIZE,
              pending: [],
            } satisfies MerchantNotificationsInput,
          ],
          signal: notificationQueuedSignal,
          signalArgs: [{ notificationId: id, invoice: notification.invoice }],
          typedSearchAttributes: [
            { key: PlatformService, value: 'collect' },
            { key: OwnerId, value: notification.merchantMin },
            { key: BusinessStatus, value: 'delivering' },
          ],
          staticSummary: `Notifications to merchant ${notification.merchantMin}`,
        });
      }
      return { notificationId: id, delivery: row.delivery };
    },

    /**
     * One POST of a batch of notifications to the merchant, recorded once per (notification, attempt):
     * a retry of this activity after the attempt was recorded returns the recorded outcome instead of
     * calling the merchant again. Notifications no longer pending are left out (`settled`).
     */
    async attemptNotificationBatch(input: {
      merchantMin: string;
      batchId: string;
      items: BatchItem[];
      requestTimeoutMs: number;
    }): Promise<BatchItemOutcome[]> {
      const ids = input.items.map((item) => item.notificationId);
      const recorded = await db
        .select()
        .from(collectNotificationAttempts)
        .where(
          and(
            inArray(collectNotificationAttempts.notificationId, ids),
            eq(collectNotificationAttempts.batchId, input.batchId),
          ),
        );
      if (recorded.length > 0) {
        // The attempts of a batch are written in one statement: all of them or none.
        return input.items.map((item) => {
          const attempt = recorded.find((row) => row.notificationId === item.notificationId);
          return {
            notificationId: item.notificationId,
            outcome: attempt ? (attempt.reply ?? 'transport') : 'settled',
            retryAfterMs: null,
            ...(refusedByPolicy(attempt?.error) ? { permanent: true } : {}),
          };
        });
      }

      const rows = await db.select().from(collectNotifications).where(inArray(collectNotifications.id, ids));
      const pending = input.items
        .map((item) => ({ item, row: rows.find((row) => row.id === item.notificationId) }))
        .filter(
          (entry): entry is { item: BatchItem; row: typeof collectNotifications.$inferSelect } =>
            entry.row?.delivery === 'pending',
        );
      const settled = (id: string): BatchItemOutcome => ({
        notificationId: id,
        outcome: 'settled',
        retryAfterMs: null,
      });
      if (pending.length === 0) return ids.map(settled);

      const merchant = await loadMerchant(db, config, input.merchantMin);
      const attemptedAt = new Date();
      const started = performance.now();
      let httpStatus: number | null = null;
      let transportError: string | null = null;
      let retryAfterMs: number | null = null;
      const replies = new Map<string, { status: NotificationReplyStatus; error?: string | undefined }>();

      if (!merchant?.notifyUrl) {
        transportError = merchant ? 'merchant has no notification URL' : 'merchant not found';
      } else {
        const encoded = Buffer.from(
          notificationPacket(
            pending.map(({ row }) => ({
              invoice: row.invoice,
              status: row.status,
              payTime: row.payTime ?? undefined,
              stan: row.stan ?? undefined,
              bcode: row.bcode ?? undefined,
              card: notifiedCard(withNotifiedCardToken(collectSecretKey(config), row)),
            })),
          ),
          'utf8',
        ).toString('base64');
        const form = new URLSearchParams({
          ENCODED: encoded,
          CHECKSUM: notificationChecksum(merchant.secret, encoded),
          SIGNATURE: signNotification(collectSigningKey(config), encoded),
        });
        try {
          const response = await send(merchant.notifyUrl, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'user-agent': 'integration-platform-collect/1',
            },
            body: form.toString(),
            redirect: 'manual', // a redirect is not an answer
            signal: AbortSignal.timeout(input.requestTimeoutMs),
          });
          httpStatus = response.status;
          const body = (await response.text()).slice(0, MAX_REPLY_BYTES);
          if (response.status < 200 || response.status >= 300) {
            transportError = `HTTP ${response.status}`;
            retryAfterMs = retryAfterOf(response.headers.get('retry-after'));
          } else {
            const parsed = parseNotificationReply(body);
            if (parsed.ok) for (const [invoice, entry] of parsed.entries) replies.set(invoice, entry);
            else transportError = parsed.reason;
          }
        } catch (failure) {
          transportError = describeFetchError(failure);
        }
      }
      const latencyMs = Math.round(performance.now() - started);

      const outcomes = pending.map(({ item, row }) => {
        const reply = transportError ? undefined : replies.get(row.invoice);
        const outcome: NotificationAttemptOutcome = transportError
          ? 'transport'
          : (reply?.status ?? 'missing');
        const error = transportError
          ? transportError
          : !reply
            ? `the reply did not answer for invoice ${row.invoice}`
            : reply.status === 'ERR'
              ? `merchant answered ERR${reply.error ? `: ${reply.error}` : ''}`
              : null;
        return { item, row, outcome, error, reply: reply?.status ?? null };
      });

      await db.transaction(async (tx) => {
        await tx
          .insert(collectNotificationAttempts)
          .values(
            outcomes.map(({ item, reply, error }) => ({
              notificationId: item.notificationId,
              attempt: item.attempt,
              batchId: input.batchId,
              batchSize: pending.length,
              attemptedAt,
              httpStatus,
              latencyMs,
              reply,
              error,
            })),
          )
          .onConflictDoNothing();
        for (const { item, outcome } of outcomes) {
          const final = outcome === 'OK' ? 'delivered' : outcome === 'NO' ? 'unknown' : undefined;
          await tx
            .update(collectNotifications)
            .set({
              attemptCount: sql`greatest(${collectNotifications.attemptCount}, ${item.attempt})`,
              lastAttemptAt: attemptedAt,
              ...(final ? { delivery: final, completedAt: attemptedAt, nextAttemptAt: null } : {}),
            })
            .where(eq(collectNotifications.id, item.notificationId));
        }
      });

      logger.info(
        {
          kind: 'collect.notification.attempt',
          workflowId: Context.current().info.workflowExecution?.workflowId,
          merchant: input.merchantMin,
          batchId: input.batchId,
          invoices: outcomes.map(({ row, outcome }) => `${row.invoice}:${outcome}`),
          httpStatus,
          latencyMs,
          error: transportError,
        },
        'merchant notification attempt',
      );
      return ids.map((id) => {
        const found = outcomes.find(({ item }) => item.notificationId === id);
        if (!found) return settled(id);
        const outcome = { notificationId: id, outcome: found.outcome, retryAfterMs };
        return refusedByPolicy(transportError) ? { ...outcome, permanent: true } : outcome;
      });
    },

    /** Writes what the workflow decided for notifications that are not settled by the reply itself. */
    async recordNotificationSchedule(input: {
      retries: { notificationId: string; nextAttemptAt: string }[];
      failed: string[];
    }): Promise<void> {
      for (const retry of input.retries) {
        await db
          .update(collectNotifications)
          .set({ nextAttemptAt: new Date(retry.nextAttemptAt) })
          .where(
            and(
              eq(collectNotifications.id, retry.notificationId),
              eq(collectNotifications.delivery, 'pending'),
            ),
          );
      }
      if (input.failed.length > 0) {
        await db
          .update(collectNotifications)
          .set({ delivery: 'failed', completedAt: new Date(), nextAttemptAt: null })
          .where(
            and(inArray(collectNotifications.id, input.failed), eq(collectNotifications.delivery, 'pending')),
          );
      }
    },
  };
}
