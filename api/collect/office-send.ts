import { createRoute } from '@hono/zod-openapi';
import { MoneySendOfficePayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textResponses } from './protocol.ts';
import { registrationAnswer, registrationHandler } from './registration.ts';

/**
 * Money send, GET /office/send.cgi: cash collectable at an office by the named recipient (the
 * loan-disbursement use case): the `payout-<idn>` workflow waits until it is collected (PAID, STAN and
 * BCODE 000000) or its expiry passes (EXPIRED).
 */
export const officeSendOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/office/send.cgi',
      tags: ['Money send'],
      summary: 'Cash payout to a named recipient at an office (MoneySendOfficePayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, `RCPT_NAME` (full name), `RCPT_ID` (personal or document number the ' +
        'office checks), optional `RCPT_PHONE`, `CURRENCY`, `DESCR`, `EXP_TIME` (default COLLECT_PAYOUT_EXPIRY). ' +
        'Answers `IDN`, `SYS_CODE` (the code the recipient quotes at the office; equal to the IDN), `STATUS=PENDING`, ' +
        '`EXP_TIME`. The merchant is notified PAID (STAN=BCODE=000000) on collection or EXPIRED.',
      request: { query: encodedQuerySchema },
      responses: textResponses(
        'Ordered',
        'IDN=1234567890\nSYS_CODE=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n',
        [...authenticationErrors, 'DUPLICATE_INVOICE'],
      ),
    }),
  handler: () =>
    registrationHandler({
      payload: MoneySendOfficePayload,
      kind: 'payout_office',
      defaultExpiryMs: (config) => config.COLLECT_PAYOUT_EXPIRY,
      details: (payout) => ({
        recipientName: payout.recipientName,
        recipientId: payout.recipientId,
        ...(payout.recipientPhone ? { recipientPhone: payout.recipientPhone } : {}),
      }),
      answer: (c, registered) => registrationAnswer(c, registered, { SYS_CODE: registered.obligation.idn }),
    }),
});
