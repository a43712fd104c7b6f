import { randomInt } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Context } from 'hono';
import { loadBillingMerchant } from '../../credentials/collect/merchants.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { type BillingCode, billingCodes, billingTid, formatMinor } from '../../domain/collect/billing.ts';
import { badField, CollectProtocolError, missingField } from '../../domain/collect/errors.ts';
import { officePayableKinds } from '../../domain/collect/obligation.ts';
import {
  type BillingCheckOutcome,
  type BillingPaymentInput,
  billingCheckedUpdate,
  billingWorkflowId,
  payObligationUpdate,
} from '../../domain/collect/processes.ts';
import { formatExpTime, formatPayTime } from '../../domain/collect/time.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  demoOnly,
  findObligation,
  type Obligation,
  protocolHandler,
  protocolParam,
  requestParams,
  requireIdn,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';

/**
 * Sandbox demo, GET /office/pay_bill.cgi (also at ePay's /ezp/pay_bill.cgi): the office pays a
 * registered obligation, or checks it; an IDN that is no registered obligation is an IDN of a
 * merchant's billing system (below). With PLATFORM_MODE=production it does not exist (404).
 */

const sixDigits = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

function statusLines(row: Obligation) {
  return {
    STATUS: row.status,
    IDN: row.idn,
    INVOICE: row.invoice,
    AMOUNT: formatAmount(row.paidAmountMinor ?? row.amountMinor),
    CURRENCY: row.currency,
    EXP_TIME: formatExpTime(row.expiresAt),
    PAY_TIME: row.payTime ?? undefined,
    STAN: row.stan ?? undefined,
    BCODE: row.bcode ?? undefined,
  };
}

export const officePayBillOperation = defineOperation({
  aliases: ['/ezp/pay_bill.cgi'],
  route: () =>
    createRoute({
      method: 'get',
      path: '/office/pay_bill.cgi',
      tags: ['Sandbox demo'],
      summary: 'Demo: pay an obligation at the office (sandbox only)',
      description:
        '`ACTION=PAY` pays the obligation `IDN` (office bill, deposit slip, or executes a bank transfer order): it ' +
        'becomes PAID with a PAY_TIME, STAN and BCODE, and the merchant is notified. `ACTION=CHECK` only answers ' +
        "its status. An IDN that is no registered obligation is looked up in the merchants' billing systems (IDNs " +
        'starting with a billing prefix; see the billing section). A late payment of an expired obligation is ' +
        '`ERR=EXPIRED`. 404 in production mode. Also at `/ezp/pay_bill.cgi`.',
      request: {
        query: z.object({
          ACTION: protocolParam().openapi({ description: '`PAY` or `CHECK`', example: 'PAY' }),
          IDN: protocolParam().openapi({ description: 'The 10-digit code', example: '1234567890' }),
        }),
      },
      responses: textResponses(
        'Paid (or, for CHECK, its status)',
        'STATUS=PAID\nIDN=1234567890\nINVOICE=1001\nAMOUNT=22.80\nCURRENCY=BGN\nEXP_TIME=01.08.2027 23:59:59\nPAY_TIME=20270715103000\nSTAN=123456\nBCODE=654321\n',
        ['MISSING_FIELD', 'BAD_FIELD', 'NOT_FOUND', 'WRONG_KIND', 'EXPIRED', 'ALREADY_PAID', 'ALREADY_FINAL'],
      ),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      demoOnly(c);
      const deps = c.get('deps');
      const params = await requestParams(c);
      const action = params.ACTION?.trim().toUpperCase();
      if (!action) throw missingField('ACTION');
      if (action !== 'PAY' && action !== 'CHECK') throw badField('ACTION', 'must be PAY or CHECK');
      const idn = requireIdn(params.IDN, 'IDN');
      const row = await findObligation(deps, idn);
      if (!row) return payBillingIdn(c, { action, idn });
      if (action === 'CHECK') return textAnswer(c, statusLines(row));
      if (!officePayableKinds.includes(row.kind)) {
        const hint = row.kind === 'payout_office' ? ' (a payout is collected with pay_money_send.cgi)' : '';
        throw new CollectProtocolError(
          'WRONG_KIND',
          `${idn} is a ${row.kind}, not payable at an office${hint}`,
        );
      }
      await updateObligation(deps, row, (handle) =>
        handle.executeUpdate(payObligationUpdate, { args: [{ stan: sixDigits(), bcode: sixDigits() }] }),
      );
      return textAnswer(c, statusLines((await findObligation(deps, idn)) ?? row));
    }),
});

/**
 * Office payment of an IDN owned by a merchant's billing system (this operation
 * delegates to it when the IDN starts with a merchant's billing prefix).
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

async function payBillingIdn(
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
        } satisfies BillingPaymentInput,
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
