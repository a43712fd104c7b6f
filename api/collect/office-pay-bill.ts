import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  type BillingDue,
  BillingRefusal,
  collect,
  type Obligation,
} from '../../application/collect/index.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { badField, missingField } from '../../domain/collect/errors.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  demoOnly,
  protocolHandler,
  protocolParam,
  requestParams,
  requireIdn,
  textAnswer,
  textResponses,
} from './protocol.ts';

/**
 * Sandbox demo, GET /office/pay_bill.cgi (also at ePay's /ezp/pay_bill.cgi): the sandbox demo desk
 * (office 000001, credentials/collect/desk-operators.ts) pays a registered obligation, or checks it; an
 * IDN that is no registered obligation is an IDN of a merchant's billing system. A thin caller of the
 * cash desk (application/collect/demo-office.ts), answering in the ePay text convention. With
 * PLATFORM_MODE=production it does not exist (404).
 */
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
      const params = await requestParams(c);
      const action = params.ACTION?.trim().toUpperCase();
      if (!action) throw missingField('ACTION');
      if (action !== 'PAY' && action !== 'CHECK') throw badField('ACTION', 'must be PAY or CHECK');
      const idn = requireIdn(params.IDN, 'IDN');
      try {
        const outcome = await collect.demoPayBill(c.get('deps'), { action, idn });
        if (outcome.type === 'obligation') return textAnswer(c, statusLines(outcome.obligation));
        if (outcome.type === 'status') return textAnswer(c, { STATUS: outcome.status, IDN: outcome.idn });
        return billingAnswer(c, outcome.status, outcome.due);
      } catch (error) {
        if (error instanceof BillingRefusal) return billingRefusalAnswer(c, idn, error);
        throw error;
      }
    }),
});

/** A refusal of the billing system: `ERR=`, `ERRMSG=` and the merchant's `BILLING_CODE`. */
function billingRefusalAnswer(c: Context<AppEnv>, idn: string, refusal: BillingRefusal) {
  const fields = {
    ERR: refusal.code.toUpperCase(),
    ERRMSG: refusal.message,
    BILLING_CODE: refusal.billing.billingCode,
    IDN: idn,
    MERCHANTID: refusal.billing.merchantMin,
    TID: refusal.billing.tid,
  };
  const text = Object.entries(fields)
    .map(([key, value]) => `${key}=${value.replace(/[\r\n]+/g, ' ')}`)
    .join('\n');
  return c.body(`${text}\n`, refusal.status as 409, { 'content-type': 'text/plain; charset=utf-8' });
}

function billingAnswer(c: Context<AppEnv>, status: 'PAID' | 'DUE', due: BillingDue) {
  return textAnswer(c, {
    STATUS: status,
    IDN: due.idn,
    MERCHANTID: due.merchantMin,
    TID: due.tid ?? undefined,
    AMOUNT: formatAmount(due.amountMinor),
    SHORTDESC: due.shortDesc ?? undefined,
    INVOICES: due.invoices ?? undefined,
  });
}
