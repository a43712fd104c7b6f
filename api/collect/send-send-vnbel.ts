import { createRoute } from '@hono/zod-openapi';
import { BankTransferPayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textResponses } from './protocol.ts';
import { registrationHandler } from './registration.ts';

/**
 * GET /send/send_vnbel.cgi: the merchant orders a bank transfer to an IBAN. The order is PENDING until
 * executed (in the sandbox: GET /office/pay_bill.cgi with its IDN plays the bank's execution) and
 * EXPIRED when not executed by its expiry.
 */
export const sendSendVnbelOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/send/send_vnbel.cgi',
      tags: ['Bank transfers'],
      summary: 'Order a bank transfer (BankTransferPayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, `IBAN` (validated, spaces allowed), `NAME` (beneficiary, at most 70 ' +
        'characters), optional `BIC`, `CURRENCY`, `DESCR` (reason, at most 70), `EXP_TIME` (default ' +
        'COLLECT_OBLIGATION_EXPIRY). Answers `IDN`, `STATUS=PENDING`, `EXP_TIME`.',
      request: { query: encodedQuerySchema },
      responses: textResponses('Ordered', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
      ]),
    }),
  handler: () =>
    registrationHandler({
      payload: BankTransferPayload,
      kind: 'bank_transfer',
      defaultExpiryMs: (config) => config.COLLECT_OBLIGATION_EXPIRY,
      details: (transfer) => ({
        iban: transfer.iban,
        beneficiaryName: transfer.beneficiaryName,
        ...(transfer.bic ? { bic: transfer.bic } : {}),
      }),
    }),
});
