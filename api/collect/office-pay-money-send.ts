import { createRoute, z } from '@hono/zod-openapi';
import { formatAmount } from '../../domain/collect/amount.ts';
import { CollectProtocolError } from '../../domain/collect/errors.ts';
import { payObligationUpdate } from '../../domain/collect/processes.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  demoOnly,
  findObligation,
  protocolHandler,
  protocolParam,
  requestParams,
  requireIdn,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';

/**
 * Sandbox demo, GET /office/pay_money_send.cgi: the office hands out a cash payout to its recipient.
 * With PLATFORM_MODE=production it does not exist (404).
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
        'is `ERR=ALREADY_PAID`. 404 in production mode.',
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
    }),
});
