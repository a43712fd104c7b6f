/**
 * Sandbox test cards of the hosted card page, and the checks a card form gets before any
 * authorisation: Luhn check digit, expiry, CVV. Pure (no I/O). docs/collect.md lists the cards.
 */
export type CardDecision = { outcome: 'approved' } | { outcome: 'declined'; reason: string };

/** Card number (digits only) → what the sandbox issuer answers. Any other valid number is declined. */
export const SANDBOX_TEST_CARDS: Readonly<Record<string, CardDecision & { brand: string }>> = {
  '4000000000000002': { brand: 'Visa', outcome: 'approved' },
  '5555555555554444': { brand: 'Mastercard', outcome: 'approved' },
  '4000000000000069': { brand: 'Visa', outcome: 'declined', reason: 'the card has expired at the issuer' },
  '4000000000009995': { brand: 'Visa', outcome: 'declined', reason: 'insufficient funds' },
  '4000000000000127': { brand: 'Visa', outcome: 'declined', reason: 'the issuer declined the payment' },
};

export function sandboxDecision(cardNumber: string): CardDecision {
  const card = SANDBOX_TEST_CARDS[cardNumber];
  if (!card) return { outcome: 'declined', reason: 'not a sandbox test card' };
  return card.outcome === 'approved' ? { outcome: 'approved' } : { outcome: 'declined', reason: card.reason };
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
