import { createRoute } from '@hono/zod-openapi';
import { BankTransferPayload, parsePayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticate,
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  registerObligation,
  registrationAnswer,
  requestParams,
  textResponses,
} from './protocol.ts';

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
    protocolHandler(async (c) => {
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const transfer = parsePayload(BankTransferPayload, packet);
      const registered = await registerObligation(deps, {
        merchant,
        packet,
        kind: 'bank_transfer',
        terms: transfer,
        defaultExpiryMs: deps.config.COLLECT_OBLIGATION_EXPIRY,
        details: {
          iban: transfer.iban,
          beneficiaryName: transfer.beneficiaryName,
          ...(transfer.bic ? { bic: transfer.bic } : {}),
        },
      });
      return registrationAnswer(c, registered);
    }),
});
