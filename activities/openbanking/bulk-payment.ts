import { ApplicationFailure } from '@temporalio/common';
import { and, asc, count, eq, gte, isNull, lt, sql } from 'drizzle-orm';
import { xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { signJws, TOKEN_ISSUER } from '../../credentials/openbanking/jws.ts';
import type { Database } from '../../db/client.ts';
import { obBanks, obHooks, obUsers } from '../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import {
  type BulkFinishedEvent,
  type BulkState,
  endToEndIdOf,
  overallBulkState,
  paymentInformationIdOf,
} from '../../domain/openbanking/bulk-payments.ts';
import { hookCallFormat } from '../../domain/openbanking/hook-events.ts';
import { budgetRemittance } from '../../domain/openbanking/payment-orders.ts';
import {
  decimalOf,
  isTransactionStatus,
  type PaymentState,
  stateOfTransaction,
  statusOfState,
  type TransactionStatus,
} from '../../domain/openbanking/payments.ts';
import type { BulkBatchInput, BulkScaStart } from '../../domain/openbanking/processes.ts';
import { type PaymentProduct, type PsuPresence, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Activities of the bulk-payment process (workflows/openbanking/bulk-payment.ts): the bank bulk
 * (one Berlin Group bulk payment carrying every entry, authorised by one SCA), the bulk's row in
 * ob_bulk_payments, its entries in ob_payments (read and written a batch at a time, in one statement
 * each), and the signed `payment.finished` event. Every step can run again after a crash and changes
 * nothing the second time: the bank answers a repeated initiation (same paymentInformationId) with the
 * same bulk, and an entry is only ever moved out of WAITING once.
 */

async function bulkWithBank(db: Database, bulkId: string) {
  const [row] = await db
    .select({ bulk: obBulkPayments, bank: obBanks })
    .from(obBulkPayments)
    .innerJoin(obBanks, eq(obBanks.bankHash, obBulkPayments.bankHash))
    .where(eq(obBulkPayments.id, bulkId));
  if (!row) throw ApplicationFailure.nonRetryable(`bulk ${bulkId} is not recorded`, 'BulkNotRecorded');
  return row;
}

const inBulk = (bulkId: string) => eq(obPayments.bulkId, bulkId);

export function createBulkPaymentActivities({ db, config, logger }: ActivityDeps) {
  const clientOf = (bank: typeof obBanks.$inferSelect) => xs2aClientFor(bank, config);

  /** Moves every entry still WAITING of the bulk (or of one seq range) to `state`. */
  async function settleWaiting(bulkId: string, state: PaymentState, reason: string | null) {
    const now = new Date();
    await db
      .update(obPayments)
      .set({
        state,
        status: statusOfState(state),
        statusReason: reason,
        updatedAt: now,
        ...(statusOfState(state) !== 'WAITING' ? { finishedAt: now } : {}),
      })
      .where(and(inBulk(bulkId), eq(obPayments.status, 'WAITING')));
  }

  return {
    /**
     * Creates the bank bulk with every entry (read from ob_payments here, so the workflow carries
     * none) and answers the bank's SCA page. A retry after a lost answer gets the same bank bulk.
     */
    async initiateBankBulk(input: {
      bulkId: string;
      redirectUri: string;
      nokRedirectUri: string;
      psu?: PsuPresence;
    }): Promise<BulkScaStart> {
      const { bulk, bank } = await bulkWithBank(db, input.bulkId);
      const entries = await db
        .select()
        .from(obPayments)
        .where(inBulk(bulk.id))
        .orderBy(asc(obPayments.bulkSeq));
      const initiated = await clientOf(bank).initiateBulkPayment(
        bulk.product as PaymentProduct,
        {
          paymentInformationId: paymentInformationIdOf(bulk.id),
          // Each entry is booked (or rejected) on its own: one failing entry does not fail the others.
          batchBookingPreferred: false,
          debtorAccount: { iban: bulk.debtorIban },
          payments: entries.map((entry) => {
            const remittance =
              entry.regulatoryReportType && entry.paymentCategory
                ? budgetRemittance(
                    {
                      ...(entry.budgetDetails ?? {}),
                      regulatoryReportType: entry.regulatoryReportType,
                      paymentCategory: entry.paymentCategory,
                    },
                    entry.remittanceInformation ?? undefined,
                  )
                : undefined;
            return {
              endToEndIdentification: endToEndIdOf(entry.code),
              instructedAmount: { currency: entry.currency, amount: decimalOf(entry.amountMinor) },
              creditorAccount: { iban: entry.creditorIban },
              creditorName: entry.creditorName,
              ...(remittance
                ? {
                    remittanceInformationUnstructured: remittance.unstructured,
                    remittanceInformationStructured: remittance.structured,
                  }
                : entry.remittanceInformation
                  ? { remittanceInformationUnstructured: entry.remittanceInformation }
                  : {}),
            };
          }),
        },
        {
          redirectUri: input.redirectUri,
          nokRedirectUri: input.nokRedirectUri,
          ...(input.psu ? { psu: input.psu } : {}),
        },
      );
      const now = new Date();
      await db
        .update(obBulkPayments)
        .set({
          bankPaymentId: initiated.paymentId,
          bankStatus: initiated.transactionStatus,
          scaRedirectUrl: initiated.scaRedirectUrl,
        })
        .where(eq(obBulkPayments.id, bulk.id));
      await db
        .update(obPayments)
        .set({
          state: 'AWAITING_SCA',
          bankPaymentId: initiated.paymentId,
          scaMethod: 'REDIRECT',
          scaRedirectUrl: initiated.scaRedirectUrl,
          updatedAt: now,
        })
        .where(and(inBulk(bulk.id), eq(obPayments.state, 'CREATED')));
      logger.info({ bulkId: bulk.id, entries: entries.length }, 'bulk initiated at the bank');
      return {
        bulkId: bulk.id,
        scaRedirectUrl: initiated.scaRedirectUrl,
        scaDeadline: bulk.scaDeadline.toISOString(),
      };
    },

    /** The bank's status of the bulk (recorded on the bulk's row). */
    async readBankBulkStatus(input: { bulkId: string }): Promise<TransactionStatus> {
      const { bulk, bank } = await bulkWithBank(db, input.bulkId);
      if (!bulk.bankPaymentId)
        throw ApplicationFailure.nonRetryable(`bulk ${bulk.id} has no bank bulk`, 'BulkNotRecorded');
      const status = await clientOf(bank).getBulkPaymentStatus(
        bulk.product as PaymentProduct,
        bulk.bankPaymentId,
      );
      await db.update(obBulkPayments).set({ bankStatus: status }).where(eq(obBulkPayments.id, bulk.id));
      return status;
    },

    /**
     * The user did not authorise in time: the bank bulk is cancelled, unless the user authorised it at
     * the last moment (the bank then refuses the cancellation). Answers the bank's status after.
     */
    async cancelBankBulk(input: { bulkId: string }): Promise<TransactionStatus> {
      const { bulk, bank } = await bulkWithBank(db, input.bulkId);
      if (!bulk.bankPaymentId)
        throw ApplicationFailure.nonRetryable(`bulk ${bulk.id} has no bank bulk`, 'BulkNotRecorded');
      const client = clientOf(bank);
      try {
        await client.cancelBulkPayment(bulk.product as PaymentProduct, bulk.bankPaymentId);
      } catch (error) {
        if (xs2aErrorTypeOf(error) !== Xs2aErrorType.StatusInvalid) throw error;
      }
      const status = await client.getBulkPaymentStatus(bulk.product as PaymentProduct, bulk.bankPaymentId);
      await db.update(obBulkPayments).set({ bankStatus: status }).where(eq(obBulkPayments.id, bulk.id));
      return status;
    },

    /** The user authorised the bulk: its entries are being executed. */
    async markBulkProcessing(input: { bulkId: string }): Promise<void> {
      const now = new Date();
      await db
        .update(obBulkPayments)
        .set({ status: 'PROCESSING', statusChangedAt: now })
        .where(and(eq(obBulkPayments.id, input.bulkId), eq(obBulkPayments.status, 'AWAITING_SCA')));
      await db
        .update(obPayments)
        .set({ state: 'EXECUTING', updatedAt: now })
        .where(and(inBulk(input.bulkId), eq(obPayments.status, 'WAITING')));
    },

    /**
     * One batch: the bank's status of entries [fromSeq, toSeq) in one bank call, recorded in one
     * statement. Only entries still WAITING move, so a batch run twice records each entry once.
     */
    async recordBulkBatch(
      input: BulkBatchInput,
    ): Promise<{ confirmed: number; failed: number; waiting: number }> {
      const { bulk, bank } = await bulkWithBank(db, input.bulkId);
      const entries = await clientOf(bank).getBulkPaymentEntries(
        bulk.product as PaymentProduct,
        bulk.bankPaymentId!,
        { offset: input.fromSeq, limit: input.toSeq - input.fromSeq },
      );
      const rows = entries.map((entry) => {
        const transactionStatus: TransactionStatus = isTransactionStatus(entry.transactionStatus)
          ? entry.transactionStatus
          : 'RCVD';
        const state = stateOfTransaction(transactionStatus);
        const reason =
          state === 'REJECTED'
            ? `the bank rejected the entry${entry.reasonCode ? ` (${entry.reasonCode})` : ''}`
            : null;
        return sql`(${`pay_${entry.endToEndIdentification}`}, ${state}, ${statusOfState(state)}, ${transactionStatus}, ${reason})`;
      });
      if (rows.length > 0) {
        await db.execute(sql`
          update ob_payments as p set
            state = v.state, status = v.status, bank_transaction_status = v.tx, status_reason = v.reason,
            updated_at = now(),
            confirmed_at = case when v.status = 'CONFIRMED' then now() else p.confirmed_at end,
            finished_at = case when v.status <> 'WAITING' then now() else p.finished_at end
          from (values ${sql.join(rows, sql`, `)}) as v(code, state, status, tx, reason)
          where p.code = v.code and p.bulk_id = ${bulk.id}
            and p.bulk_seq >= ${input.fromSeq} and p.bulk_seq < ${input.toSeq}
            and p.status = 'WAITING'`);
      }
      const counts = await db
        .select({ status: obPayments.status, value: count() })
        .from(obPayments)
        .where(
          and(inBulk(bulk.id), gte(obPayments.bulkSeq, input.fromSeq), lt(obPayments.bulkSeq, input.toSeq)),
        )
        .groupBy(obPayments.status);
      const of = (status: string) => counts.find((row) => row.status === status)?.value ?? 0;
      return { confirmed: of('CONFIRMED'), failed: of('FAILED'), waiting: of('WAITING') };
    },

    /** The bulk ends without execution (refused, denied, not authorised in time): every entry fails. */
    async failBulkEntries(input: { bulkId: string; state: PaymentState; reason: string }): Promise<void> {
      await settleWaiting(input.bulkId, input.state, input.reason);
      await db
        .update(obBulkPayments)
        .set({ reason: input.reason })
        .where(and(eq(obBulkPayments.id, input.bulkId), isNull(obBulkPayments.reason)));
    },

    /** The overall state from the entries (counted, not accumulated: a repeat counts the same). */
    async finishBulk(input: {
      bulkId: string;
    }): Promise<{ status: BulkState; confirmed: number; failed: number }> {
      const counts = await db
        .select({ status: obPayments.status, value: count() })
        .from(obPayments)
        .where(inBulk(input.bulkId))
        .groupBy(obPayments.status);
      const of = (status: string) => counts.find((row) => row.status === status)?.value ?? 0;
      const total = counts.reduce((sum, row) => sum + row.value, 0);
      const confirmed = of('CONFIRMED');
      const failed = of('FAILED');
      const status = overallBulkState({ total, confirmed, failed });
      const now = new Date();
      await db
        .update(obBulkPayments)
        .set({
          status,
          confirmedCount: confirmed,
          failedCount: failed,
          statusChangedAt: now,
          finishedAt: now,
        })
        .where(and(eq(obBulkPayments.id, input.bulkId), isNull(obBulkPayments.finishedAt)));
      return { status, confirmed, failed };
    },

    /** The signed `payment.finished` event of the bulk for its hook (else the signup's webhookUrl). */
    async prepareBulkWebhook(input: { bulkId: string; state: string }): Promise<WebhookRequest | null> {
      const [row] = await db
        .select({
          bulk: obBulkPayments,
          hook: obHooks,
          webhookUrl: obUsers.webhookUrl,
          webhookBodyFormat: obUsers.webhookBodyFormat,
        })
        .from(obBulkPayments)
        .innerJoin(obUsers, eq(obUsers.id, obBulkPayments.userId))
        .leftJoin(obHooks, eq(obHooks.hookHash, obBulkPayments.hookHash))
        .where(and(eq(obBulkPayments.id, input.bulkId), isNull(obUsers.deletedAt)));
      if (!row) return null;
      const { bulk, hook } = row;
      if (hook && !hook.events.includes('payment.finished')) return null;
      const target = hook?.url ?? row.webhookUrl;
      if (!target) return null;
      const eventId = `${bulk.id}.finished`;
      const event: BulkFinishedEvent = {
        iss: TOKEN_ISSUER,
        jti: eventId,
        iat: Math.floor((bulk.finishedAt ?? new Date()).getTime() / 1000),
        type: 'payment.finished',
        state: input.state,
        bulkId: bulk.id,
        userId: bulk.userId,
        bankHash: bulk.bankHash,
        kind: bulk.kind,
        status: bulk.status,
        entries: bulk.entryCount,
        confirmed: bulk.confirmedCount,
        failed: bulk.failedCount,
        reason: bulk.reason,
      };
      const { jws } = await signJws(db, config, event);
      return {
        service: 'openbanking',
        ownerId: bulk.agentId,
        url: target,
        urlParams: { state: input.state },
        eventType: 'payment.finished',
        eventId,
        subjectId: bulk.id,
        payload: { jws, event: event as unknown as Record<string, unknown> },
        format: hookCallFormat(hook?.bodyFormat ?? row.webhookBodyFormat),
      };
    },
  };
}
