/**
 * Bulgarian Unified Identification Code (UIC, ЕИК/BULSTAT) of a company: 9 digits, or 13 for a branch,
 * each with a check digit computed by the Registry Agency's weighted mod-11 rule.
 */

function checkDigit(
  digits: readonly number[],
  weights: readonly number[],
  fallbackWeights: readonly number[],
): number {
  const weighted = (w: readonly number[]) => digits.reduce((sum, digit, i) => sum + digit * w[i]!, 0) % 11;
  const first = weighted(weights);
  if (first !== 10) return first;
  const second = weighted(fallbackWeights);
  return second === 10 ? 0 : second;
}

const NINE_WEIGHTS = [1, 2, 3, 4, 5, 6, 7, 8];
const NINE_FALLBACK = [3, 4, 5, 6, 7, 8, 9, 10];
const THIRTEEN_WEIGHTS = [2, 7, 3, 5];
const THIRTEEN_FALLBACK = [4, 9, 5, 7];

/** True when `uic` is 9 or 13 digits with valid check digits. */
export function isValidUic(uic: string): boolean {
  if (!/^(\d{9}|\d{13})$/.test(uic)) return false;
  const digits = [...uic].map(Number);
  if (checkDigit(digits.slice(0, 8), NINE_WEIGHTS, NINE_FALLBACK) !== digits[8]) return false;
  if (digits.length === 9) return true;
  return checkDigit(digits.slice(8, 12), THIRTEEN_WEIGHTS, THIRTEEN_FALLBACK) === digits[12];
}
