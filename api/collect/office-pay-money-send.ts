import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
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
 * Sandbox demo, GET /office/pay_money_send.cgi: the sandbox demo desk (office 000001) hands out a cash
 * payout through the cash desk's own code (application/collect/demo-office.ts), playing a desk that has
 * checked the recipient's document (it presents the registered identity; a real desk types in what the
 * document says, POST /desk/api/payouts). With PLATFORM_MODE=production it does not exist (404).
 */
export const officePayMoneySendOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/office/pay_money_send.cgi',
      tags: ['Sandbox demo'],
      summary: 'Demo: hand out a cash payout at the office (sandbox only)',
      description:
        'The recipient of the payout `SYS_CODE` collects the cash: the payout becomes PAID (STAN and BCODE ' +
        "`000000`) and the merchant is notified. After the payout's expiry it is `ERR=EXPIRED`; a second collection " +
        'is `ERR=ALREADY_PAID`. 404 in production mode. Cash desks pay out with the identity check: ' +
        '`POST /desk/api/payouts`.',
      request: {
        query: z.object({
          SYS_CODE: protocolParam().openapi({
            description: 'The payout code (its IDN)',
            example: '1234567890',
          }),
        }),
      },
      responses: textResponses(
        'Collected',
        'STATUS=PAID\nSYS_CODE=1234567890\nINVOICE=1001\nAMOUNT=150.00\nCURRENCY=BGN\nRCPT_NAME=Ivan Petrov\nPAY_TIME=20270715103000\nSTAN=000000\nBCODE=000000\n',
        ['MISSING_FIELD', 'BAD_FIELD', 'NOT_FOUND', 'EXPIRED', 'ALREADY_PAID'],
      ),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      demoOnly(c);
      const sysCode = requireIdn((await requestParams(c)).SYS_CODE, 'SYS_CODE');
      const paid = await collect.demoPayOutCash(c.get('deps'), { sysCode });
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
    }),
});
