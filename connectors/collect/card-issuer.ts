import { type CardDecision, sandboxDecision } from '../../domain/collect/test-cards.ts';

/**
 * Who decides a card payment: the card page's authorisation, pre-authorisation holds (POST /v3main/)
 * and one-touch payments. The only issuer this gateway has today is the **sandbox issuer**
 * (domain/collect/test-cards.ts: the test cards; one-touch's sandbox card), which approves without
 * taking any money. So in PLATFORM_MODE=production there is no issuer: those operations refuse to run
 * (`ACQUIRER_NOT_CONFIGURED`, 503) and never settle anything; a real acquirer's connector goes here.
 */
export interface CardIssuer {
  readonly kind: 'sandbox';
  /** The issuer's answer for a card (digits only). */
  decide(cardNumber: string): CardDecision;
}

const sandboxIssuer: CardIssuer = { kind: 'sandbox', decide: sandboxDecision };

/** The card issuer of this process, or undefined when none may be used (production: no acquirer yet). */
export function cardIssuerFor(config: { PLATFORM_MODE: 'sandbox' | 'production' }): CardIssuer | undefined {
  return config.PLATFORM_MODE === 'production' ? undefined : sandboxIssuer;
}

export const ACQUIRER_NOT_CONFIGURED_MESSAGE =
  'card payments are not available: PLATFORM_MODE=production and no acquirer is configured (the sandbox issuer never runs in production)';
