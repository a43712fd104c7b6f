import type { OpenAPIHono } from '@hono/zod-openapi';
import {
  MoneySendOfficePayload,
  MoneySendProviderPayload,
  parsePayload,
} from '../../domain/collect/payloads.ts';
import type { AppEnv } from '../shared/context.ts';
import {
  addTextOperation,
  authenticate,
  authenticationErrors,
  encodedQuerySchema,
  registerObligation,
  registrationAnswer,
  requestParams,
  textResponses,
} from './protocol.ts';

/**
 * Money send. GET /office/send.cgi: cash collectable at an office by the named recipient (the
 * loan-disbursement use case): the `payout-<idn>` workflow waits until it is collected (PAID, STAN and
 * BCODE 000000) or its expiry passes (EXPIRED). GET /send/send.cgi: to an account with the provider
 * (KIN, e-mail or GSM): credited at once (PAID).
 */
export function registerMoneySendRoutes(app: OpenAPIHono<AppEnv>): void {
  addTextOperation(
    app,
    {
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
    },
    async (c) => {
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const payout = parsePayload(MoneySendOfficePayload, packet);
      const registered = await registerObligation(deps, {
        merchant,
        packet,
        kind: 'payout_office',
        terms: payout,
        defaultExpiryMs: deps.config.COLLECT_PAYOUT_EXPIRY,
        details: {
          recipientName: payout.recipientName,
          recipientId: payout.recipientId,
          ...(payout.recipientPhone ? { recipientPhone: payout.recipientPhone } : {}),
        },
      });
      return registrationAnswer(c, registered, { SYS_CODE: registered.obligation.idn });
    },
  );

  addTextOperation(
    app,
    {
      method: 'get',
      path: '/send/send.cgi',
      tags: ['Money send'],
      summary: 'Send money to a provider account (MoneySendProviderPayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, `RCPT` and `RCPT_TYPE` (`KIN`: customer number, `EMAIL`, `GSM`: phone ' +
        'number), optional `CURRENCY`, `DESCR`. The account is credited at once: the workflow settles PAID and the ' +
        'merchant is notified. Answers `IDN`, `STATUS` (PENDING until the workflow has recorded it, then PAID), `EXP_TIME`.',
      request: { query: encodedQuerySchema },
      responses: textResponses('Sent', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
      ]),
    },
    async (c) => {
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const send = parsePayload(MoneySendProviderPayload, packet);
      const registered = await registerObligation(deps, {
        merchant,
        packet,
        kind: 'payout_provider',
        terms: send,
        defaultExpiryMs: deps.config.COLLECT_PAYOUT_EXPIRY,
        details: { recipient: send.recipient, recipientType: send.recipientType },
      });
      return registrationAnswer(c, registered);
    },
  );
}
