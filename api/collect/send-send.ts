import { createRoute } from '@hono/zod-openapi';
import { providerAccountId } from '../../domain/collect/ledger.ts';
import { MoneySendProviderPayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import { authenticationErrors, encodedQuerySchema, textResponses } from './protocol.ts';
import { registrationHandler } from './registration.ts';

/**
 * Money send, GET /send/send.cgi: to an account with the provider (KIN, e-mail or GSM): credited at
 * once (PAID) by the `payout-<idn>` workflow.
 */
export const sendSendOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/send/send.cgi',
      tags: ['Money send'],
      summary: 'Send money to a provider account (MoneySendProviderPayload)',
      description:
        'Packet: `MIN`, `INVOICE`, `AMOUNT`, `RCPT` and `RCPT_TYPE` (`KIN`: customer number, `EMAIL`, `GSM`: phone ' +
        'number), optional `CURRENCY`, `DESCR`. The provider account `<RCPT_TYPE>:<RCPT>` is credited at once (docs/collect.md "Provider accounts"): the workflow settles PAID and the ' +
        'merchant is notified. Answers `IDN`, `STATUS` (PENDING until the workflow has recorded it, then PAID), `EXP_TIME`.',
      request: { query: encodedQuerySchema },
      responses: textResponses('Sent', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
      ]),
    }),
  handler: () =>
    registrationHandler({
      payload: MoneySendProviderPayload,
      kind: 'payout_provider',
      defaultExpiryMs: (config) => config.COLLECT_PAYOUT_EXPIRY,
      details: (send) => ({
        recipient: send.recipient,
        recipientType: send.recipientType,
        providerAccount: providerAccountId(send.recipientType, send.recipient),
      }),
    }),
});
