import { createRoute } from '@hono/zod-openapi';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Context } from 'hono';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { badField, CollectProtocolError } from '../../domain/collect/errors.ts';
import { isOpen } from '../../domain/collect/obligation.ts';
import { CardChargePayload, parsePayload } from '../../domain/collect/payloads.ts';
import { chargeCardUpdate } from '../../domain/collect/processes.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticate,
  authenticationErrors,
  encodedQuerySchema,
  findObligation,
  type Obligation,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';
import { registerObligation } from './registration.ts';

/**
 * GET /card/charge.cgi (design, decision 0045): the merchant charges a card its customer saved on the
 * card page (SAVECARD=1), without the customer: an obligation `card_charge` per INVOICE whose workflow
 * authorises the saved card at the acquirer (merchant-initiated, no 3-D Secure) and captures it, posted
 * to the ledger like any captured card payment. Answered when the charge is decided: PAID or DENIED
 * (both HTTP 200); the same packet again answers the same result and charges nothing.
 */

/** The merchant's saved card that has not been forgotten; another merchant's is unknown here. */
async function requireSavedCard(deps: UseCaseDeps, min: string, cardToken: string): Promise<void> {
  const [card] = await deps.db
    .select({ id: collectSavedCards.id })
    .from(collectSavedCards)
    .where(
      and(
        eq(collectSavedCards.id, cardToken),
        eq(collectSavedCards.merchantMin, min),
        isNull(collectSavedCards.deletedAt),
      ),
    );
  if (!card) throw badField('CARD_TOKEN', 'is not a saved card of this merchant');
}

/** Why a DENIED charge was declined (kept with its status event). */
async function declineReason(deps: UseCaseDeps, idn: string): Promise<string> {
  const [event] = await deps.db
    .select({ detail: collectObligationEvents.detail })
    .from(collectObligationEvents)
    .where(and(eq(collectObligationEvents.idn, idn), eq(collectObligationEvents.status, 'DENIED')))
    .orderBy(desc(collectObligationEvents.id))
    .limit(1);
  const reason = event?.detail.reason;
  return typeof reason === 'string' ? reason : 'the card was declined';
}

/** Waits for the charge's outcome (its workflow charges on its own); answers the final read model. */
async function decidedCharge(deps: UseCaseDeps, obligation: Obligation): Promise<Obligation> {
  if (!isOpen(obligation.status)) return obligation;
  try {
    await updateObligation(deps, obligation, (handle) => handle.executeUpdate(chargeCardUpdate));
  } catch (error) {
    // Decided meanwhile and its workflow closed: the read model has the outcome.
    const closed =
      error instanceof CollectProtocolError && ['ALREADY_PAID', 'ALREADY_FINAL'].includes(error.code);
    if (!closed) throw error;
  }
  return (await findObligation(deps, obligation.idn)) ?? obligation;
}

async function chargeAnswer(c: Context<AppEnv>, deps: UseCaseDeps, charge: Obligation, replayed: boolean) {
  const headers: Record<string, string> = replayed ? { 'idempotent-replayed': 'true' } : {};
  if (charge.status === 'PAID') {
    return textAnswer(
      c,
      {
        IDN: charge.idn,
        STATUS: 'PAID',
        PAY_TIME: charge.payTime ?? '',
        STAN: charge.stan ?? '',
        BCODE: charge.bcode ?? '',
      },
      200,
      headers,
    );
  }
  if (charge.status === 'DENIED') {
    return textAnswer(
      c,
      { IDN: charge.idn, STATUS: 'DENIED', REASON: await declineReason(deps, charge.idn) },
      200,
      headers,
    );
  }
  // Expired before the acquirer could be asked (or answered): nothing was charged.
  throw new CollectProtocolError('EXPIRED', 'the charge expired before the card acquirer could be asked');
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
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const charge = parsePayload(CardChargePayload, packet);
      // A packet sent before answers its first result, whatever became of the card since.
      const [earlier] = await deps.db
        .select({ idn: collectObligations.idn })
        .from(collectObligations)
        .where(
          and(
            eq(collectObligations.merchantMin, merchant.min),
            eq(collectObligations.invoice, charge.invoice),
          ),
        );
      if (!earlier) await requireSavedCard(deps, merchant.min, charge.cardToken);
      const { obligation, replayed } = await registerObligation(deps, {
        merchant,
        packet,
        kind: 'card_charge',
        terms: charge,
        defaultExpiryMs: deps.config.COLLECT_CARD_CHARGE_EXPIRY,
        details: { cardToken: charge.cardToken },
      });
      if (obligation.kind !== 'card_charge') {
        throw new CollectProtocolError(
          'DUPLICATE_INVOICE',
          `INVOICE ${obligation.invoice} is registered already for another kind of payment`,
          'INVOICE',
        );
      }
      return chargeAnswer(c, deps, await decidedCharge(deps, obligation), replayed);
    }),
});
