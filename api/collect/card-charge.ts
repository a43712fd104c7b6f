import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type CardCharge, collect } from '../../application/collect/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';

/**
 * GET /card/charge.cgi (design, decision 0045): the merchant charges a card its customer saved on the
 * card page (SAVECARD=1), without the customer: an obligation `card_charge` per INVOICE whose workflow
 * authorises the saved card at the acquirer (merchant-initiated, no 3-D Secure) and captures it, posted
 * to the ledger like any captured card payment. Answered when the charge is decided: PAID or DENIED
 * (both HTTP 200); the same packet again answers the same result and charges nothing.
 */

function chargeAnswer(c: Context<AppEnv>, charge: CardCharge): Response {
  const headers: Record<string, string> = charge.replayed ? { 'idempotent-replayed': 'true' } : {};
  const lines =
    charge.status === 'PAID'
      ? {
          IDN: charge.idn,
          STATUS: 'PAID',
          PAY_TIME: charge.payTime ?? '',
          STAN: charge.stan ?? '',
          BCODE: charge.bcode ?? '',
        }
      : { IDN: charge.idn, STATUS: 'DENIED', REASON: charge.reason };
  return textAnswer(c, lines, 200, headers);
}

export const cardChargeOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/card/charge.cgi',
      tags: ['Saved cards'],
      summary: 'Charge a saved card (CardChargePayload)',
      description:
        'Design (decision 0045), not in the ePay protocol. Packet: `MIN`, `INVOICE`, `AMOUNT`, `CARD_TOKEN` ' +
        '(a card this merchant’s customer saved on the card page with SAVECARD=1; another merchant’s, an unknown ' +
        'or a forgotten one is `BAD_FIELD CARD_TOKEN`), optional `CURRENCY`, `DESCR`. The card is charged without ' +
        'the customer (a merchant-initiated authorisation, then its capture) and the answer waits for the outcome: ' +
        '`IDN`, `STATUS=PAID`, `PAY_TIME`, `STAN`, `BCODE`; or `IDN`, `STATUS=DENIED`, `REASON` (a decline is an ' +
        'answer: HTTP 200). The merchant is notified as for any obligation. Once per INVOICE: the same packet again ' +
        'answers the first result (`Idempotent-Replayed: true`) and charges nothing; another packet with a used ' +
        'INVOICE is `DUPLICATE_INVOICE`. `ERR=UNAVAILABLE` (503): the card acquirer could not be asked; send the same ' +
        'packet again (until COLLECT_CARD_CHARGE_EXPIRY, then `EXPIRED`).',
      request: { query: encodedQuerySchema },
      responses: textResponses(
        'Charged (STATUS=PAID) or declined (STATUS=DENIED, REASON)',
        'IDN=1234567890\nSTATUS=PAID\nPAY_TIME=20270801120000\nSTAN=123456\nBCODE=A1B2C3\n',
        [...authenticationErrors, 'DUPLICATE_INVOICE', 'EXPIRED', 'ACQUIRER_REFUSED', 'UNAVAILABLE'],
      ),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      return chargeAnswer(c, await collect.chargeSavedCard(c.get('deps'), await requestParams(c)));
    }),
});
