import { randomInt } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { formatAmount } from '../../domain/collect/amount.ts';
import { badField, CollectProtocolError, missingField } from '../../domain/collect/errors.ts';
import { officePayableKinds } from '../../domain/collect/obligations.ts';
import { IDN_TEXT } from '../../domain/collect/payloads.ts';
import { formatExpTime } from '../../domain/collect/time.ts';
import { payObligationUpdate } from '../../workflows/collect/obligation.ts';
import type { AppEnv } from '../shared/context.ts';
import { handleBillingPayment } from './billing.ts';
import {
  addTextOperation,
  findObligation,
  type Obligation,
  requestParams,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';

/**
 * Sandbox-only demo endpoints that play the office: paying a registered obligation
 * (GET /office/pay_bill.cgi, also at ePay's /ezp/pay_bill.cgi) and handing out a cash payout
 * (GET /office/pay_money_send.cgi). With PLATFORM_MODE=production they do not exist (404).
 */

const disabledInProduction = (c: Parameters<typeof textAnswer>[0]) => {
  if (c.get('deps').config.PLATFORM_MODE === 'production') {
    throw new CollectProtocolError('NOT_FOUND', 'demo endpoints are disabled in production mode');
  }
};

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

function requireIdn(value: string | undefined, field: string): string {
  if (!value) throw missingField(field);
  if (!IDN_TEXT.test(value)) throw badField(field, 'must be 10 digits');
  return value;
}

export function registerDemoRoutes(app: OpenAPIHono<AppEnv>): void {
  addTextOperation(
    app,
    {
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
          ACTION: z.string().optional().openapi({ description: '`PAY` or `CHECK`', example: 'PAY' }),
          IDN: z.string().optional().openapi({ description: 'The 10-digit code', example: '1234567890' }),
        }),
      },
      responses: textResponses(
        'Paid (or, for CHECK, its status)',
        'STATUS=PAID\nIDN=1234567890\nINVOICE=1001\nAMOUNT=22.80\nCURRENCY=BGN\nEXP_TIME=01.08.2027 23:59:59\nPAY_TIME=20270715103000\nSTAN=123456\nBCODE=654321\n',
        ['MISSING_FIELD', 'BAD_FIELD', 'NOT_FOUND', 'WRONG_KIND', 'EXPIRED', 'ALREADY_PAID', 'ALREADY_FINAL'],
      ),
    },
    async (c) => {
      disabledInProduction(c);
      const deps = c.get('deps');
      const params = await requestParams(c);
      const action = params.ACTION?.trim().toUpperCase();
      if (!action) throw missingField('ACTION');
      if (action !== 'PAY' && action !== 'CHECK') throw badField('ACTION', 'must be PAY or CHECK');
      const idn = requireIdn(params.IDN, 'IDN');
      const row = await findObligation(deps, idn);
      if (!row) return handleBillingPayment(c, { action, idn });
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
    },
    { aliases: ['/ezp/pay_bill.cgi'] },
  );

  addTextOperation(
    app,
    {
      method: 'get',
      path: '/office/pay_money_send.cgi',
      tags: ['Sandbox demo'],
      summary: 'Demo: hand out a cash payout at the office (sandbox only)',
      description:
        'The recipient of the payout `SYS_CODE` collects the cash: the payout becomes PAID (STAN and BCODE ' +
        "`000000`) and the merchant is notified. After the payout's expiry it is `ERR=EXPIRED`; a second collection " +
        'is `ERR=ALREADY_PAID`. 404 in production mode.',
      request: {
        query: z.object({
          SYS_CODE: z
            .string()
            .optional()
            .openapi({ description: 'The payout code (its IDN)', example: '1234567890' }),
        }),
      },
      responses: textResponses(
        'Collected',
        'STATUS=PAID\nSYS_CODE=1234567890\nINVOICE=1001\nAMOUNT=150.00\nCURRENCY=BGN\nRCPT_NAME=Ivan Petrov\nPAY_TIME=20270715103000\nSTAN=000000\nBCODE=000000\n',
        ['MISSING_FIELD', 'BAD_FIELD', 'NOT_FOUND', 'EXPIRED', 'ALREADY_PAID'],
      ),
    },
    async (c) => {
      disabledInProduction(c);
      const deps = c.get('deps');
      const sysCode = requireIdn((await requestParams(c)).SYS_CODE, 'SYS_CODE');
      const row = await findObligation(deps, sysCode);
      if (row?.kind !== 'payout_office') {
        throw new CollectProtocolError('NOT_FOUND', `no cash payout ${sysCode}`, 'SYS_CODE');
      }
      await updateObligation(deps, row, (handle) =>
        handle.executeUpdate(payObligationUpdate, { args: [{ stan: '000000', bcode: '000000' }] }),
      );
      const paid = (await findObligation(deps, sysCode)) ?? row;
      return textAnswer(c, {
        STATUS: paid.status,
        SYS_CODE: paid.idn,
        INVOICE: paid.invoice,
        AMOUNT: formatAmount(paid.amountMinor),
        CURRENCY: paid.currency,
        RCPT_NAME: paid.details.recipientName,
        PAY_TIME: paid.payTime ?? undefined,
        STAN: paid.stan ?? undefined,
        BCODE: paid.bcode ?? undefined,
      });
    },
  );
}
