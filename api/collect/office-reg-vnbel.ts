import { createRoute } from '@hono/zod-openapi';
import { DepositSlipPayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textResponses } from './protocol.ts';
import { registrationHandler } from './registration.ts';

/**
 * GET /office/reg_vnbel.cgi: a deposit-slip payment request. The payer quotes the IDN on the slip
 * (cash deposited at a bank or office); the obligation is PAID when the deposit arrives (in the
 * sandbox: GET /office/pay_bill.cgi) or EXPIRED at its expiry.
 */
export const officeRegVnbelOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/office/reg_vnbel.cgi',
      tags: ['Deposit slips'],
      summary: 'Register a deposit-slip payment request (DepositSlipPayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY`, `EXP_TIME` (default COLLECT_OBLIGATION_EXPIRY), ' +
        '`DESCR` (reason, at most 70 characters), `NAME` (payer). Answers `IDN` (the reference to write on the slip), ' +
        '`STATUS=PENDING` and `EXP_TIME`.',
      request: { query: encodedQuerySchema },
      responses: textResponses(
        'Registered',
        'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n',
        [...authenticationErrors, 'DUPLICATE_INVOICE'],
      ),
    }),
  handler: () =>
    registrationHandler({
      payload: DepositSlipPayload,
      kind: 'deposit_slip',
      defaultExpiryMs: (config) => config.COLLECT_OBLIGATION_EXPIRY,
      details: (slip): Record<string, string> => (slip.payerName ? { payerName: slip.payerName } : {}),
    }),
});
