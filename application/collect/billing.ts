import { randomInt } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import { loadBillingMerchant } from '../../credentials/collect/merchants.ts';
import { collectBillingPayments } from '../../db/schema/collect-notifications.ts';
import { type BillingCode, billingTid, isBillingCode } from '../../domain/collect/billing.ts';
import {
  type BillingCheckOutcome,
  type BillingPaymentInput,
  billingCheckedUpdate,
  billingWorkflowId,
  type SettlementSource,
} from '../../domain/collect/processes.ts';
import { formatPayTime } from '../../domain/epay-time.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * A desk's payment (or check) of an IDN owned by a merchant's billing system: the `billing-<idn>-<tid>`
 * workflow (workflows/collect/billing.ts) asks the merchant's /pay/init, and for PAY confirms with
 * /pay/confirm. Used by the cash desk and by the sandbox demo pay_bill.cgi.
 */

/** How a desk answers each refusal of the merchant's billing system (HTTP status, ePay error code). */
export const billingRefusals: Record<
  Exclude<BillingCode, '00' | '94' | '80'>,
  { status: 404 | 409 | 502; err: string }
> = {
  '13': { status: 409, err: 'BILLING_INVALID_AMOUNT' },
  '14': { status: 404, err: 'NOT_FOUND' },
  '62': { status: 409, err: 'BILLING_NO_OBLIGATION' },
  '93': { status: 502, err: 'BILLING_CHECKSUM_REJECTED' },
  '96': { status: 502, err: 'BILLING_ERROR' },
};

export interface OfficeBillingPayment {
  idn: string;
  action: 'PAY' | 'CHECK';
  /** The office (its AID in the TID). */
  officeId: string;
  /** The desk's trace number in the TID; a random one for a check. */
  stan?: string | undefined;
  /** When the desk took the payment (the DATE of the TID). */
  at?: Date | undefined;
  /** PAY: the desk, operator and receipt; the ledger posts the payment against them (decision 0029). */
  source?: SettlementSource | undefined;
}

export type OfficeBillingResult =
  | { found: false }
  | { found: true; merchantMin: string; tid: string; outcome: BillingCheckOutcome };

/**
 * Runs (or, for the same TID, finds again) the billing payment. A repeated request with the same
 * office, trace number and time reaches the same workflow; once that has closed, its read model answers.
 */
export async function officeBillingPayment(
  deps: UseCaseDeps,
  payment: OfficeBillingPayment,
): Promise<OfficeBillingResult> {
  const { db, config, temporal } = deps;
  const merchant = await loadBillingMerchant(db, config, payment.idn);
  if (!merchant?.billingUrl) return { found: false };

  const date = formatPayTime(payment.at ?? new Date());
  const stan = payment.stan ?? String(randomInt(0, 1_000_000));
  const tid = billingTid(date, stan, payment.officeId);
  const found = { found: true as const, merchantMin: merchant.min, tid };
  try {
    const outcome: BillingCheckOutcome = await temporal.workflow.executeUpdateWithStart(
      billingCheckedUpdate,
      {
        startWorkflowOperation: new WithStartWorkflowOperation('billingPayment', {
          workflowId: billingWorkflowId(payment.idn, tid),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'USE_EXISTING',
          // A closed payment is never started again: the merchant would be asked to confirm it twice.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [
            {
              tid,
              idn: payment.idn,
              merchantMin: merchant.min,
              action: payment.action,
              date,
              source: payment.action === 'PAY' ? payment.source : undefined,
              checkTimeoutMs: config.COLLECT_BILLING_CHECK_TIMEOUT,
              requestTimeoutMs: config.COLLECT_BILLING_REQUEST_TIMEOUT,
              retryScheduleMs: config.COLLECT_BILLING_RETRY_SCHEDULE,
            } satisfies BillingPaymentInput,
          ],
          typedSearchAttributes: [
            { key: PlatformService, value: 'collect' },
            { key: OwnerId, value: merchant.min },
            { key: BusinessStatus, value: 'checking' },
          ],
          staticSummary: `Billing ${payment.action} of IDN ${payment.idn} (merchant ${merchant.min})`,
        }),
      },
    );
    return { ...found, outcome };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { ...found, outcome: await recordedOutcome(deps, tid) };
  }
}

/** What a closed billing payment answered, from its read model. */
async function recordedOutcome(deps: UseCaseDeps, tid: string): Promise<BillingCheckOutcome> {
  const [row] = await deps.db
    .select()
    .from(collectBillingPayments)
    .where(eq(collectBillingPayments.tid, tid));
  const code = row?.checkCode && isBillingCode(row.checkCode) ? row.checkCode : undefined;
  if (!row || !code) return { result: 'unavailable', error: 'the billing payment has no recorded check' };
  if (row.status === 'refused') {
    if (code in billingRefusals) return { result: 'refused', code };
    if (code === '80') return { result: 'unavailable', error: 'the billing system was unavailable' };
    return { result: 'invalid_reply', code, error: 'the merchant confirmed the IDN without an AMOUNT' };
  }
  return {
    result: 'ok',
    code,
    amountMinor: row.amountMinor ?? 0,
    shortDesc: row.shortDesc ?? undefined,
    invoices: row.invoices ?? undefined,
  };
}
