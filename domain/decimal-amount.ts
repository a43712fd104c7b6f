import { Decimal } from 'decimal.js';
import { z } from 'zod';

/**
 * Money amounts as the services accept them (decision 0085): exact decimal strings, digits with at most
 * one dot, read with decimal.js (never a float), and taken as sent: `" 10.00 "`, `"1e3"`, `"+5"`,
 * `"10,00"` are refused naming the field, never trimmed or coerced and booked. One rule, its limits per
 * field (digits before and after the point, zero allowed or not). Pure (no I/O).
 */

export interface DecimalAmountRules {
  /** Digits before the point, at most (default 15). */
  integerDigits?: number;
  /** Digits after the point, at most (default 2). */
  decimals?: number;
  /** `positive` (default): more than 0; `non-negative`: 0 too. */
  min?: 'positive' | 'non-negative';
  /** The example in messages (default `12.50`). */
  example?: string;
}

const SHAPE = /^(\d+)(?:\.(\d+))?$/;

/** Why `text` is not an amount under `rules` (for the field's message), or undefined when it is one. */
export function decimalAmountProblem(text: string, rules: DecimalAmountRules = {}): string | undefined {
  const { integerDigits = 15, decimals = 2, min = 'positive', example = '12.50' } = rules;
  if (text.trim() !== text) return 'must not have spaces around it';
  if (text.startsWith('-')) return min === 'positive' ? 'must be more than 0' : 'must not be negative';
  if (/^\d+,\d+$/.test(text)) return 'use a dot as the decimal separator';
  const match = SHAPE.exec(text);
  if (!match) return `must be a decimal amount like ${example}`;
  if ((match[1] ?? '').length > integerDigits)
    return `has more than ${integerDigits} digits before the decimal point`;
  if ((match[2] ?? '').length > decimals)
    return decimals === 0 ? 'must be a whole number' : `has more than ${decimals} decimals`;
  if (min === 'positive' && new Decimal(text).isZero()) return 'must be more than 0';
  return undefined;
}

/** The zod schema of an amount field under `rules`: the text as sent, or an issue naming the problem. */
export const decimalAmount = (rules: DecimalAmountRules = {}) =>
  z.string().superRefine((text, ctx) => {
    const problem = decimalAmountProblem(text, rules);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
