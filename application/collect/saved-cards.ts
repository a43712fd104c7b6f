import { and, desc, eq, isNull } from 'drizzle-orm';
import { savedCardOfToken } from '../../credentials/collect/card-tokens.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { badField, CollectProtocolError } from '../../domain/collect/errors.ts';
import { isOpen } from '../../domain/collect/obligation.ts';
import { CardChargePayload, CardForgetPayload, parsePayload } from '../../domain/collect/payloads.ts';
import { chargeCardUpdate } from '../../domain/collect/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { authenticate, findObligation, type Obligation, updateObligation } from './obligation.ts';
import { registerObligation } from './registration.ts';

/**
 * Saved cards (decision 0045): the merchant charges a card its customer saved on the card page
 * (SAVECARD=1) without the customer, or forgets it.
 */

/** The id of the merchant's saved card that has not been forgotten; another merchant's is unknown here. */
async function requireSavedCard(deps: UseCaseDeps, min: string, cardToken: string): Promise<string> {
  const [card] = await deps.db
    .select({ id: collectSavedCards.id })
    .from(collectSavedCards)
    .where(
      and(
        savedCardOfToken(collectSecretKey(deps.config), cardToken),
        eq(collectSavedCards.merchantMin, min),
        isNull(collectSavedCards.deletedAt),
      ),
    );
  if (!card) throw badField('CARD_TOKEN', 'is not a saved card of this merchant');
  return card.id;
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
  return (await findObligation(deps, { idn: obligation.idn })) ?? obligation;
}

/** A decided charge: paid, or declined with the acquirer's reason. */
export type CardCharge = {
  idn: string;
  /** The same packet had been charged before: this is its first result. */
  replayed: boolean;
} & (
  | { status: 'PAID'; payTime: string | null; stan: string | null; bcode: string | null }
  | { status: 'DENIED'; reason: string }
);

async function chargeOutcome(deps: UseCaseDeps, charge: Obligation, replayed: boolean): Promise<CardCharge> {
  if (charge.status === 'PAID') {
    return {
      idn: charge.idn,
      replayed,
      status: 'PAID',
      payTime: charge.payTime,
      stan: charge.stan,
      bcode: charge.bcode,
    };
  }
  if (charge.status === 'DENIED') {
    return { idn: charge.idn, replayed, status: 'DENIED', reason: await declineReason(deps, charge.idn) };
  }
  // Expired before the acquirer could be asked (or answered): nothing was charged.
  throw new CollectProtocolError('EXPIRED', 'the charge expired before the card acquirer could be asked');
}

/**
 * Charges a saved card (CardChargePayload): an obligation `card_charge` per INVOICE whose workflow
 * authorises the saved card at the acquirer (merchant-initiated, no 3-D Secure) and captures it.
 * Answers once the charge is decided; the same packet again answers the same result and charges nothing.
 */
export async function chargeSavedCard(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<CardCharge> {
  const { merchant, packet } = await authenticate(deps, params);
  const charge = parsePayload(CardChargePayload, packet);
  // A packet sent before answers its first result, whatever became of the card since.
  const [earlier] = await deps.db
    .select({ idn: collectObligations.idn })
    .from(collectObligations)
    .where(
      and(eq(collectObligations.merchantMin, merchant.min), eq(collectObligations.invoice, charge.invoice)),
    );
  const savedCardId = earlier ? undefined : await requireSavedCard(deps, merchant.min, charge.cardToken);
  const { obligation, replayed } = await registerObligation(deps, {
    merchant,
    packet,
    kind: 'card_charge',
    terms: charge,
    defaultExpiryMs: deps.config.COLLECT_CARD_CHARGE_EXPIRY,
    // The card by its id: the token itself is kept only sealed (credentials/collect/card-tokens.ts).
    details: savedCardId ? { savedCardId } : {},
  });
  if (obligation.kind !== 'card_charge') {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${obligation.invoice} is registered already for another kind of payment`,
      'INVOICE',
    );
  }
  return chargeOutcome(deps, await decidedCharge(deps, obligation), replayed);
}

/**
 * Forgets the merchant's saved card (CardForgetPayload): it can no longer be charged. The row stays,
 * marked deleted, for the charges made with it; forgetting it again answers the same.
 */
export async function forgetSavedCard(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<{ cardToken: string }> {
  const { merchant, packet } = await authenticate(deps, params);
  const { cardToken } = parsePayload(CardForgetPayload, packet);
  const ofMerchant = and(
    savedCardOfToken(collectSecretKey(deps.config), cardToken),
    eq(collectSavedCards.merchantMin, merchant.min),
  );
  await deps.db
    .update(collectSavedCards)
    .set({ deletedAt: new Date() })
    .where(and(ofMerchant, isNull(collectSavedCards.deletedAt)));
  const [card] = await deps.db.select({ id: collectSavedCards.id }).from(collectSavedCards).where(ofMerchant);
  if (!card) throw badField('CARD_TOKEN', 'is not a saved card of this merchant');
  return { cardToken };
}
