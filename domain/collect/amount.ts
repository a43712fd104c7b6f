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
export function amountProblem(text: string): string | undefined {
  if (/^-/.test(text)) return 'must be positive';
  if (/^\d+\.\d{3,}$/.test(text)) return 'has more than 2 decimals';
  if (/^\d+,\d+$/.test(text)) return 'use a dot as the decimal separator';
  if (!AMOUNT.exec(text)) return 'must be a decimal amount like 22.80 (at most 9 integer digits)';
  if (parseAmountMinor(text) === undefined) return 'must be greater than zero';
  return undefined;
}

/** `2280` → `"22.80"`. */
export function formatAmount(minor: number): string {
  const units = Math.trunc(minor / 100);
  const cents = String(minor % 100).padStart(2, '0');
  return `${units}.${cents}`;
}
