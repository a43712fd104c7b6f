import { decimalAmountProblem } from '../decimal-amount.ts';

/**
 * Exact money amounts. `AMOUNT=22.80` is read as 2280 minor units (integer arithmetic on the text,
 * never a float). Pure (no I/O).
 */
const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

/** Minor units of a decimal text with a dot; undefined when it is not a positive amount of that form. */
export function parseAmountMinor(text: string): number | undefined {
  const match = AMOUNT.exec(text);
  if (!match) return undefined;
  const minor = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return minor > 0 ? minor : undefined;
}

/** Why a text is not an amount (for the error message), or undefined when it is one. */
export const amountProblem = (text: string): string | undefined =>
  decimalAmountProblem(text, { integerDigits: 9, decimals: 2, example: '22.80' });

/** `2280` → `"22.80"`. */
export function formatAmount(minor: number): string {
  const units = Math.trunc(minor / 100);
  const cents = String(minor % 100).padStart(2, '0');
  return `${units}.${cents}`;
}
