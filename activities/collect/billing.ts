import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import { loadMerchant } from '../../credentials/collect/merchants.ts';
import type { Database } from '../../db/client.ts';
import { postLedgerTransaction } from '../../db/collect/ledger.ts';
import { collectBillingAttempts, collectBillingPayments } from '../../db/schema/collect-notifications.ts';
import {
  type BillingCode,
  type BillingReply,
  billingChecksumInput,
  billingCodes,
  parseBillingReply,
} from '../../domain/collect/billing.ts';
import { billingSettlement } from '../../domain/collect/ledger.ts';
import { DEFAULT_CURRENCY } from '../../domain/collect/payloads.ts';
import type { BillingPaymentStart, SettlementSource } from '../../domain/collect/processes.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { describeFetchError, outboundFetchFor, refusedByPolicy } from '../../platform/outbound-http.ts';

export interface BillingActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  fetch?: typeof fetch;
}

/** The billing CHECKSUM: lowercase hex HMAC-SHA1 of the sorted `NAMEVALUE\n` lines. */
export const billingChecksum = (secret: string, params: Record<string, string>) =>
  createHmac('sha1', secret).update(billingChecksumInput(params), 'utf8').digest('hex');

/** Retryable failure type of /pay/init and /pay/confirm: code 80, a network error, a bad reply. */
export const BILLING_UNAVAILABLE = 'BillingUnavailable';

export type BillingCallResult =
  | { kind: 'answered'; reply: BillingReply }
  /**
   * No usable answer: code 80, network error, timeout, non-2xx or unreadable reply; `permanent` when the
   * outbound-URL policy refused the billing URL (no later attempt can succeed: the call ends now).
   */
  | { kind: 'unavailable'; error: string; permanent?: boolean };

/** The result of a call that got no usable answer, permanent when the outbound-URL policy refused it. */
const unavailable = (error: string): BillingCallResult =>
  refusedByPolicy(error) ? { kind: 'unavailable', error, permanent: true } : { kind: 'unavailable', error };

/**
 * Activities of billing callbacks: the gateway's calls of the merchant's `/pay/init` and
 * `/pay/confirm`. Every call is recorded in collect_billing_attempts.
 */
export function createBillingActivities(deps: BillingActivityDeps) {
  const { db, config, logger } = deps;
  const send = deps.fetch ?? outboundFetchFor(config);

  /** One GET of `<billingUrl>/pay/<phase>`, recorded; the reply's code when one could be read. */
  async function callBilling(
    payment: BillingPaymentStart,
    phase: 'init' | 'confirm',
    attempt: number,
    params: Record<string, string>,
  ): Promise<BillingCallResult> {
    const [recorded] = await db
      .select()
      .from(collectBillingAttempts)
      .where(
        and(
          eq(collectBillingAttempts.tid, payment.tid),
          eq(collectBillingAttempts.phase, phase),
          eq(collectBillingAttempts.attempt, attempt),
        ),
      );
    if (recorded && phase === 'confirm') {
      // A retried activity after the call was recorded: the recorded answer stands.
      const code = recorded.code as BillingCode | null;
      if (code && billingCodes[code].effect !== 'retry') return { kind: 'answered', reply: { code } };
      return unavailable(recorded.error ?? `code ${code}`);
    }

    const merchant = await loadMerchant(db, config, payment.merchantMin);
    if (!merchant?.billingUrl) {
      throw ApplicationFailure.nonRetryable(`merchant ${payment.merchantMin} has no billing URL`);
    }
    const query = { ...params, CHECKSUM: billingChecksum(merchant.secret, params) };
    const url = `${merchant.billingUrl.replace(/\/+$/, '')}/pay/${phase}?${new URLSearchParams(query)}`;
    const attemptedAt = new Date();
    const started = performance.now();
    let httpStatus: number | null = null;
    let result: BillingCallResult;
    try {
      const response = await send(url, {
        headers: { accept: 'application/json, text/plain', 'user-agent': 'integration-platform-collect/1' },
        redirect: 'manual',
        signal: AbortSignal.timeout(config.COLLECT_BILLING_REQUEST_TIMEOUT),
      });
      httpStatus = response.status;
      const body = (await response.text()).slice(0, 64 * 1024);
      if (response.status < 200 || response.status >= 300) {
        result = { kind: 'unavailable', error: `HTTP ${response.status}` };
      } else {
        const parsed = parseBillingReply(body);
        if (!parsed.ok) result = { kind: 'unavailable', error: parsed.reason };
        else if (billingCodes[parsed.reply.code].effect === 'retry')
          result = { kind: 'unavailable', error: `code ${parsed.reply.code} (temporarily unavailable)` };
        else result = { kind: 'answered', reply: parsed.reply };
      }
    } catch (failure) {
      result = unavailable(describeFetchError(failure));
    }
    const latencyMs = Math.round(performance.now() - started);
    const code =
      result.kind === 'answered'
        ? result.reply.code
        : /^code (\d\d)/.exec(result.error)?.[1] === '80'
          ? '80'
          : null;
    await db
      .insert(collectBillingAttempts)
      .values({
        tid: payment.tid,
        phase,
        attempt,
        attemptedAt,
        httpStatus,
        code,
        latencyMs,
        error: result.kind === 'unavailable' ? result.error : null,
      })
      .onConflictDoNothing();
    logger.info(
      {
        kind: 'collect.billing.call',
        workflowId: Context.current().info.workflowExecution?.workflowId,
        phase,
        tid: payment.tid,
        attempt,
        httpStatus,
        code,
        latencyMs,
        error: result.kind === 'unavailable' ? result.error : undefined,
      },
      'billing call',
    );
    return result;
  }

  return {
    /**
     * `/pay/init`: does the merchant's billing system know the IDN, and what is due? Code 80 and
     * network errors are thrown as retryable (the workflow's retry policy bounds how long the office
     * waits); every other code is returned.
     */
    async checkBill(payment: BillingPaymentStart): Promise<BillingReply> {
      await db
        .insert(collectBillingPayments)
        .values({
          tid: payment.tid,
          idn: payment.idn,
          merchantMin: payment.merchantMin,
          action: payment.action,
          date: payment.date,
          status: 'checking',
        })
        .onConflictDoNothing();
      const params: Record<string, string> = {
        IDN: payment.idn,
        MERCHANTID: payment.merchantMin,
        TYPE: payment.action === 'PAY' ? 'BILLING' : 'CHECK',
      };
      if (payment.action === 'PAY') params.TID = payment.tid;
      const result = await callBilling(payment, 'init', Context.current().info.attempt, params);
      if (result.kind === 'unavailable') {
        // A billing URL the outbound-URL policy refuses: the office is answered now, not after retries.
        throw ApplicationFailure.create({
          message: `/pay/init: ${result.error}`,
          type: BILLING_UNAVAILABLE,
          nonRetryable: result.permanent === true,
        });
      }
      return result.reply;
    },

    /** `/pay/confirm`: one attempt; the workflow owns the retry schedule. */
    async confirmBill(input: {
      payment: BillingPaymentStart;
      attempt: number;
      totalMinor: number;
      invoices: string | undefined;
    }): Promise<BillingCallResult> {
      const params: Record<string, string> = {
        IDN: input.payment.idn,
        MERCHANTID: input.payment.merchantMin,
        TID: input.payment.tid,
        DATE: input.payment.date,
        TOTAL: String(input.totalMinor),
        TYPE: 'BILLING',
      };
      if (input.invoices) params.INVOICES = input.invoices;
      return callBilling(input.payment, 'confirm', input.attempt, params);
    },

    /**
     * Moves the read model of a billing payment; when the office takes the money (`confirming`, with
     * the desk as `source`) its ledger postings go in the same transaction, once (keyed by the TID).
     */
    async recordBillingPayment(input: {
      tid: string;
      status: (typeof collectBillingPayments.$inferSelect)['status'];
      checkCode?: string | undefined;
      confirmCode?: string | undefined;
      amountMinor?: number | undefined;
      shortDesc?: string | undefined;
      invoices?: string | undefined;
      final: boolean;
      source?: SettlementSource | undefined;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(collectBillingPayments)
          .set({
            status: input.status,
            ...(input.checkCode !== undefined ? { checkCode: input.checkCode } : {}),
            ...(input.confirmCode !== undefined ? { confirmCode: input.confirmCode } : {}),
            ...(input.amountMinor !== undefined ? { amountMinor: input.amountMinor } : {}),
            ...(input.shortDesc !== undefined ? { shortDesc: input.shortDesc } : {}),
            ...(input.invoices !== undefined ? { invoices: input.invoices } : {}),
            ...(input.final ? { completedAt: new Date() } : {}),
          })
          .where(eq(collectBillingPayments.tid, input.tid))
          .returning();
        if (!row || input.status !== 'confirming' || !input.source || !row.amountMinor) return;
        const payment = { ...row, currency: DEFAULT_CURRENCY, amountMinor: row.amountMinor };
        await postLedgerTransaction(tx, billingSettlement(payment, input.source, config.COLLECT_FEE_BPS), {
          detail: { source: input.source },
        });
      });
    },
  };
}
