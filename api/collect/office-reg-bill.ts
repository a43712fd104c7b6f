import { createRoute } from '@hono/zod-openapi';
import { OfficeBillPayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textAnswer, textResponses } from './protocol.ts';
import { registrationHandler } from './registration.ts';

/**
 * GET /office/reg_bill.cgi (ePay "EasyPay"): registers an obligation payable at an office or ATM and
 * answers its 10-digit code as `IDN=<code>`. ePay's own path /ezp/reg_bill.cgi and POST with a form
 * body are served too, so existing merchant code only changes its base URL.
 */
export const officeRegBillOperation = defineOperation({
  aliases: ['/ezp/reg_bill.cgi'],
  methods: ['get', 'post'],
  route: () =>
    createRoute({
      method: 'get',
      path: '/office/reg_bill.cgi',
      tags: ['Office payments'],
      summary: 'Register an obligation payable at an office or ATM (OfficeBillPayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY` (BGN), `EXP_TIME` (default COLLECT_OBLIGATION_EXPIRY), ' +
        '`DESCR`, `ENCODING=utf-8`. Answers `IDN=<10 digits>`: the customer pays with this code until the expiry. ' +
        'The same packet again answers the same IDN (header `Idempotent-Replayed: true`); another packet with the same ' +
        'INVOICE is `DUPLICATE_INVOICE`. Also served as POST (form body) and at `/ezp/reg_bill.cgi`.',
      request: { query: encodedQuerySchema },
      responses: textResponses('Registered', 'IDN=1234567890\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
      ]),
    }),
  handler: () =>
    registrationHandler({
      payload: OfficeBillPayload,
      kind: 'office_bill',
      defaultExpiryMs: (config) => config.COLLECT_OBLIGATION_EXPIRY,
      // ePay's EasyPay answer is the code alone.
      answer: (c, { obligation, replayed }) =>
        textAnswer(c, { IDN: obligation.idn }, 200, replayed ? { 'idempotent-replayed': 'true' } : {}),
    }),
});
