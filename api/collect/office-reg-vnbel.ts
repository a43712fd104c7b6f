import { createRoute } from '@hono/zod-openapi';
import { DepositSlipPayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textResponses } from './protocol.ts';
import { registrationAnswer, registrationHandler } from './registration.ts';

/**
 * GET /office/reg_vnbel.cgi: a deposit-slip payment request. The payer quotes the IDN on the slip
 * (cash deposited at a bank or office), or transfers the amount to the gateway's collection account
 * (IBAN, BENEFICIARY: COLLECT_COLLECTION_IBAN / _BENEFICIARY, decision 0045) with the IDN in the
 * remittance information; the obligation is PAID when the deposit arrives (a desk, a camt statement;
 * in the sandbox also GET /office/pay_bill.cgi) or EXPIRED at its expiry.
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
        '`IBAN` and `BENEFICIARY` (the gateway’s collection account, where the payer may transfer the amount with the ' +
        'IDN in the remittance information), `STATUS=PENDING` and `EXP_TIME`.',
      request: { query: encodedQuerySchema },
      responses: textResponses(
        'Registered',
        'IDN=1234567890\nIBAN=BG80BNBG96611020345678\nBENEFICIARY=Integration Platform Collections\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n',
        [...authenticationErrors, 'DUPLICATE_INVOICE'],
      ),
    }),
  handler: () =>
    registrationHandler({
      payload: DepositSlipPayload,
      kind: 'deposit_slip',
      defaultExpiryMs: (config) => config.COLLECT_OBLIGATION_EXPIRY,
      details: (slip): Record<string, string> => (slip.payerName ? { payerName: slip.payerName } : {}),
      answer: (c, registered) => {
        const { config } = c.get('deps');
        return registrationAnswer(c, registered, {
          IBAN: config.COLLECT_COLLECTION_IBAN,
          BENEFICIARY: config.COLLECT_COLLECTION_BENEFICIARY,
        });
      },
    }),
});
