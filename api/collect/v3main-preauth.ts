import { createRoute } from '@hono/zod-openapi';
import { collect, type Obligation } from '../../application/collect/index.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticationErrors,
  encodedFormDocumentation,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';
import { registrationAnswer } from './registration.ts';

/**
 * POST /v3main/: pre-authorisation in three phases on one endpoint, chosen by the packet's `PHASE`:
 * REGISTER registers the hold (PENDING: nothing is held until the customer's card authorises AMOUNT on
 * the card page, PAGE=credit_preauth with the same packet → HELD); FINALIZE captures at most the held
 * amount at the card acquirer (PAID, the acquirer's STAN and BCODE); REVERSE voids the hold (REVERSED,
 * notified to the merchant as DENIED). A hold neither finalized nor reversed by its expiry is EXPIRED
 * and voided. Repeating a FINALIZE with the same amount or a REVERSE answers the same outcome again.
 * Decision 0032.
 */

function settledAnswer(c: Parameters<typeof textAnswer>[0], row: Obligation) {
  return textAnswer(c, {
    IDN: row.idn,
    STATUS: row.status,
    AMOUNT: row.paidAmountMinor !== null ? formatAmount(row.paidAmountMinor) : undefined,
    PAY_TIME: row.payTime ?? undefined,
    STAN: row.stan ?? undefined,
    BCODE: row.bcode ?? undefined,
  });
}

export const v3mainPreauthOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/v3main/',
      tags: ['Pre-authorisation'],
      summary: 'Pre-authorisation: register, finalize or reverse (PreauthRegister/Finalize/ReversePayload)',
      description:
        "ENCODED and CHECKSUM as form fields (or in the query). The packet's `PHASE` chooses the phase:\n\n" +
        '- `REGISTER`: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY`, `DESCR`, `EXP_TIME` (default ' +
        'COLLECT_PREAUTH_EXPIRY), `URL_OK`, `URL_CANCEL`. Answers `IDN`, `STATUS=PENDING`, `EXP_TIME`: nothing is ' +
        'held until the customer authorises the hold with a card on the card page (`POST /` with ' +
        '`PAGE=credit_preauth` and the same ENCODED/CHECKSUM) → HELD.\n' +
        '- `FINALIZE`: `MIN`, `IDN`, `AMOUNT` (at most the held amount, else `AMOUNT_EXCEEDS_HOLD`; `NOT_HELD` before ' +
        'the card authorised it). The card acquirer captures it. Answers `IDN`, `STATUS=PAID`, `AMOUNT`, `PAY_TIME`, ' +
        "`STAN`, `BCODE` (the acquirer's).\n" +
        '- `REVERSE`: `MIN`, `IDN`. The acquirer voids the hold. Answers `IDN`, `STATUS=REVERSED` (the merchant is ' +
        'notified `DENIED`).\n\n' +
        'A hold neither finalized nor reversed by its expiry becomes EXPIRED (notified) and is voided.',
      request: {
        body: {
          content: {
            'application/x-www-form-urlencoded': { schema: encodedFormDocumentation },
          },
        },
      },
      responses: textResponses('Done', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
        'NOT_FOUND',
        'WRONG_KIND',
        'EXPIRED',
        'ALREADY_PAID',
        'ALREADY_FINAL',
        'AMOUNT_EXCEEDS_HOLD',
        'NOT_HELD',
        'IN_PROGRESS',
        'ACQUIRER_REFUSED',
        'ACQUIRER_UNAVAILABLE',
      ]),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      const outcome = await collect.preauthorise(c.get('deps'), await requestParams(c));
      switch (outcome.phase) {
        case 'REGISTER':
          return registrationAnswer(c, outcome.registered, {
            AMOUNT: formatAmount(outcome.registered.obligation.amountMinor),
          });
        case 'FINALIZE':
          return settledAnswer(c, outcome.obligation);
        case 'REVERSE':
          return textAnswer(c, {
            IDN: outcome.obligation.idn,
            STATUS: outcome.obligation.status,
            EXP_TIME: formatExpTime(outcome.obligation.expiresAt),
          });
      }
    }),
});
