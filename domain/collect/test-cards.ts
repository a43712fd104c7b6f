/**
 * Cards: the checks a card form gets before any authorisation (Luhn check digit, expiry, CVV), the
 * sandbox acquirer's test cards (sandbox/collect/acquirer.ts decides by them), and the well-known test
 * card numbers that PLATFORM_MODE=production refuses before asking any acquirer. Pure (no I/O).
 * docs/collect.md ("Card acquirer") lists the cards.
 */

/** What the sandbox acquirer does with a test card. */
export type TestCardBehaviour =
  | { outcome: 'approved' }
  | { outcome: 'declined'; reason: string }
  /** A 3-D Secure challenge on the acquirer's hosted page; passed → approved, failed → declined. */
  | { outcome: 'challenge' };

/**
 * Card number (digits only) → what the sandbox acquirer answers for it; `whenStored`: what it answers
 * to a merchant-initiated charge of the card once stored (decision 0045), when that differs.
 */
export const SANDBOX_TEST_CARDS: Readonly<
  Record<string, TestCardBehaviour & { brand: string; whenStored?: TestCardBehaviour }>
> = {
  '4000000000000002': { brand: 'Visa', outcome: 'approved' },
  '5555555555554444': { brand: 'Mastercard', outcome: 'approved' },
  '4000000000000069': { brand: 'Visa', outcome: 'declined', reason: 'the card has expired at the issuer' },
  '4000000000009995': { brand: 'Visa', outcome: 'declined', reason: 'insufficient funds' },
  '4000000000000127': { brand: 'Visa', outcome: 'declined', reason: 'the issuer declined the payment' },
  '4000000000003220': { brand: 'Visa', outcome: 'challenge' },
  // Stored (verified or paid) without trouble; every later merchant-initiated charge is declined.
  '4000000000000341': {
    brand: 'Visa',
    outcome: 'approved',
    whenStored: { outcome: 'declined', reason: 'the issuer declined the payment' },
  },
};

/**
 * Card numbers published as test cards by this sandbox and by the big acquirers' sandboxes. In
 * PLATFORM_MODE=production the gateway refuses them before any authorisation: a test card must never
 * make a real merchant believe it was paid, whichever acquirer is configured.
 */
const WELL_KNOWN_TEST_CARDS: ReadonlySet<string> = new Set([
  ...Object.keys(SANDBOX_TEST_CARDS),
  '4111111111111111',
  '4242424242424242',
  '4012888888881881',
  '4000056655665556',
  '5105105105105100',
  '5454545454545454',
  '2223003122003222',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '3566002020360505',
]);

export const isWellKnownTestCard = (digits: string) => WELL_KNOWN_TEST_CARDS.has(digits);

/**
 * The sandbox acquirer's rule for a card (digits only): a test card behaves as listed; any other card
 * that passes the Luhn check is approved (so a sandbox acquirer configured for a production gateway,
 * which refuses the test cards, can still be paid with), anything else is declined.
 */
export function sandboxCardBehaviour(cardNumber: string): TestCardBehaviour {
  const card = SANDBOX_TEST_CARDS[cardNumber];
  if (card) {
    return card.outcome === 'declined'
      ? { outcome: 'declined', reason: card.reason }
      : { outcome: card.outcome };
  }
  return passesLuhn(cardNumber)
    ? { outcome: 'approved' }
    : { outcome: 'declined', reason: 'invalid card number' };
}

/**
 * The sandbox acquirer's rule for a merchant-initiated charge of a stored card: as for the number,
 * except that it is exempt from 3-D Secure (a challenge card is approved) and a card listed with
 * `whenStored` answers that.
 */
export function sandboxStoredCardBehaviour(cardNumber: string): TestCardBehaviour {
  const stored = SANDBOX_TEST_CARDS[cardNumber]?.whenStored;
  if (stored) return stored;
  const behaviour = sandboxCardBehaviour(cardNumber);
  return behaviour.outcome === 'challenge' ? { outcome: 'approved' } : behaviour;
}

/** Whether the digits pass the Luhn (mod 10) check. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export interface CardForm {
  number: string;
  expiry: string;
  cvv: string;
  holder: string;
}

export interface ValidCard {
  /** Digits only. */
  number: string;
  expiryMonth: number;
  expiryYear: number;
  holder: string;
}

export type CardField = keyof CardForm;

/**
 * Validates the form; answers the card or the problem of each field. `now` decides expiry: a card is
 * valid through the last day of its expiry month.
 */
export function validateCard(
  form: CardForm,
  now: Date,
):
  | { card: ValidCard; problems?: undefined }
  | { card?: undefined; problems: Partial<Record<CardField, string>> } {
  const problems: Partial<Record<CardField, string>> = {};
  const number = form.number.replace(/[\s-]/g, '');
  if (number === '') problems.number = 'Enter the card number';
  else if (!/^\d{12,19}$/.test(number)) problems.number = 'A card number has 12 to 19 digits';
  else if (!passesLuhn(number)) problems.number = 'This card number is not valid (check digit)';

  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.expiry);
  let expiryMonth = 0;
  let expiryYear = 0;
  if (form.expiry.trim() === '') problems.expiry = 'Enter the expiry date';
  else if (!expiry) problems.expiry = 'Write the expiry date as MM/YY';
  else {
    expiryMonth = Number(expiry[1]);
    expiryYear = Number(expiry[2]?.length === 2 ? `20${expiry[2]}` : expiry[2]);
    const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
    const cardMonth = expiryYear * 12 + (expiryMonth - 1);
    if (expiryMonth < 1 || expiryMonth > 12) problems.expiry = 'The month must be 01 to 12';
    else if (cardMonth < thisMonth) problems.expiry = 'This card has expired';
    else if (cardMonth > thisMonth + 20 * 12) problems.expiry = 'The expiry date is too far in the future';
  }

  if (form.cvv.trim() === '') problems.cvv = 'Enter the security code (CVV)';
  else if (!/^\d{3}$/.test(form.cvv.trim())) problems.cvv = 'The security code (CVV) has 3 digits';

  const holder = form.holder.trim();
  if (holder.length > 100) problems.holder = 'The name has at most 100 characters';

  if (Object.keys(problems).length > 0) return { problems };
  return { card: { number, expiryMonth, expiryYear, holder } };
}
