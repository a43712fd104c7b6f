import { randomInt } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Context } from 'hono';
import { loadBillingMerchant } from '../../activities/collect/merchants.ts';
import { type BillingCode, billingCodes, billingTid, formatMinor } from '../../domain/collect/billing.ts';
import { formatPayTime } from '../../domain/collect/time.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import {
  type BillingCheckOutcome,
  billingCheckedUpdate,
  billingWorkflowId,
} from '../../workflows/collect/billing.ts';
import type { AppEnv } from '../shared/context.ts';

/**
 * Office payment of an IDN owned by a merchant's billing system (the demo endpoint
 * GET /office/pay_bill.cgi delegates here when the IDN starts with a merchant's billing prefix).
 *
 * ACTION=CHECK asks the merchant's `/pay/init` what is due; ACTION=PAY does the same, takes the
 * money and has the `billing-<idn>-<tid>` workflow confirm it at `/pay/confirm` (durably, retried).
 * Answers `KEY=VALUE` text lines like the ENCODED endpoints:
 *   200  STATUS=PAID|DUE, IDN, MERCHANTID, TID, AMOUNT (decimal), SHORTDESC, INVOICES
 *   4xx/5xx  ERR=<code>, ERRMSG=<text>, BILLING_CODE=<merchant's code> (see docs/collect.md)
 */

/** Office (acquirer) id in TIDs of the demo office. */
const DEMO_OFFICE_AID = '000001';

/** How the office answers each refusal of the merchant's billing system. */
const refusals: Record<Exclude<BillingCode, '00' | '94' | '80'>, { status: 404 | 409 | 502; err: string }> = {
  '13': { status: 409, err: 'BILLING_INVALID_AMOUNT' },
  '14': { status: 404, err: 'NOT_FOUND' },
  '62': { status: 409, err: 'BILLING_NO_OBLIGATION' },
  '93': { status: 502, err: 'BILLING_CHECKSUM_REJECTED' },
  '96': { status: 502, err: 'BILLING_ERROR' },
};

const textLines = (fields: Record<string, string | undefined>) =>
  `${Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${value.replace(/[\r\n]+/g, ' ')}`)
    .join('\n')}\n`;

function textResponse(
  c: Context<AppEnv>,
  status: 200 | 400 | 404 | 409 | 502 | 503,
  fields: Record<string, string | undefined>,
) {
  return c.body(textLines(fields), status, { 'content-type': 'text/plain; charset=utf-8' });
}

export async function handleBillingPayment(
  c: Context<AppEnv>,
  { action, idn }: { action: string; idn: string },
): Promise<Response> {
  const { db, config, temporal } = c.get('deps');
  const normalisedAction = action.trim().toUpperCase();
  if (normalisedAction !== 'PAY' && normalisedAction !== 'CHECK') {
    return textResponse(c, 400, {
      ERR: 'BAD_FIELD',
      ERRMSG: 'ACTION: must be PAY or CHECK',
      FIELD: 'ACTION',
    });
  }
  const merchant = await loadBillingMerchant(db, config, idn);
  if (!merchant?.billingUrl) {
    return textResponse(c, 404, { ERR: 'NOT_FOUND', ERRMSG: `no billing system owns IDN ${idn}` });
  }

  const date = formatPayTime(new Date());
  const tid = billingTid(date, String(randomInt(0, 1_000_000)), DEMO_OFFICE_AID);
  const workflowId = billingWorkflowId(idn, tid);
  const outcome: BillingCheckOutcome = await temporal.workflow.executeUpdateWithStart(billingCheckedUpdate, {
    startWorkflowOperation: new WithStartWorkflowOperation('billingPayment', {
      workflowId,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowIdConflictPolicy: 'FAIL',
      args: [
        {
          tid,
          idn,
          merchantMin: merchant.min,
          action: normalisedAction,
          date,
          checkTimeoutMs: config.COLLECT_BILLING_CHECK_TIMEOUT,
          requestTimeoutMs: config.COLLECT_BILLING_REQUEST_TIMEOUT,
          retryScheduleMs: config.COLLECT_BILLING_RETRY_SCHEDULE,
        },
      ],
      typedSearchAttributes: [
        { key: PlatformService, value: 'collect' },
        { key: OwnerId, value: merchant.min },
        { key: BusinessStatus, value: 'checking' },
      ],
      staticSummary: `Billing ${normalisedAction} of IDN ${idn} (merchant ${merchant.min})`,
    }),
  });

  const common = { IDN: idn, MERCHANTID: merchant.min, TID: tid };
  switch (outcome.result) {
    case 'ok':
      return textResponse(c, 200, {
        STATUS: normalisedAction === 'PAY' ? 'PAID' : 'DUE',
        ...common,
        AMOUNT: formatMinor(outcome.amountMinor),
        SHORTDESC: outcome.shortDesc,
        INVOICES: outcome.invoices,
      });
    case 'refused': {
      const refusal = refusals[outcome.code as keyof typeof refusals];
      return textResponse(c, refusal.status, {
        ERR: refusal.err,
        ERRMSG: billingCodes[outcome.code].meaning,
        BILLING_CODE: outcome.code,
        ...common,
      });
    }
    case 'unavailable':
      return textResponse(c, 503, {
        ERR: 'BILLING_UNAVAILABLE',
        ERRMSG: 'the billing system is temporarily unavailable; try again later',
        BILLING_CODE: '80',
        ...common,
      });
    case 'invalid_reply':
      return textResponse(c, 502, {
        ERR: 'BILLING_BAD_REPLY',
        ERRMSG: outcome.error,
        BILLING_CODE: outcome.code,
        ...common,
      });
  }
}
