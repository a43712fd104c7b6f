import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CreditProduct,
  creditProductSchema,
  type LoanTerms,
} from '../../domain/lending/credit-products.ts';
import { calculateSchedule, LoanTermsRefused, type Schedule } from '../../domain/lending/schedule.ts';
import { decimalSchedule } from './schedule-oracle.ts';

/**
 * Decision 0072: schedules are computed in integer minor units. Held here to the decimal.js
 * implementation they replaced (schedule-oracle.ts), cent for cent, on random products and terms:
 * every currency digit count, both amortisations, both first-due-date rules, promo discounts, fees,
 * rates up to 1000 % with 4 decimals, terms up to 600 months, amounts from one minor unit to 15 digits.
 */

const CURRENCIES = ['USD', 'JPY', 'KWD', 'EUR'] as const;
const DIGITS: Record<(typeof CURRENCIES)[number], number> = { USD: 2, JPY: 0, KWD: 3, EUR: 2 };

/** `units` minor units as text with `digits` decimals, padded with `extraZeros` trailing zeros. */
const asText = (units: bigint, digits: number, extraZeros = 0) => {
  const text = units.toString().padStart(digits + 1, '0');
  const fraction = text.slice(text.length - digits) + '0'.repeat(extraZeros);
  const whole = text.slice(0, text.length - digits);
  return fraction ? `${whole}.${fraction}` : whole;
};

/** A rate in ten-thousandths of a percent as the product writes it ("5.25", "0.0001", "12"). */
const rateText = (tenThousandths: number) => asText(BigInt(tenThousandths), 4).replace(/\.?0+$/, '') || '0';

type Outcome = { schedule: Schedule } | { refused: unknown };

const outcome = (calculate: () => Schedule): Outcome => {
  try {
    return { schedule: calculate() };
  } catch (error) {
    expect(error).toBeInstanceOf(LoanTermsRefused);
    return { refused: (error as LoanTermsRefused).problems };
  }
};

const sameAsTheOracle = (product: CreditProduct, terms: LoanTerms) => {
  const expected = outcome(() => decimalSchedule(product, terms));
  expect(outcome(() => calculateSchedule(product, terms))).toEqual(expected);
  return expected;
};

const loans = fc
  .record({
    currency: fc.constantFrom(...CURRENCIES),
    amortisation: fc.constantFrom('equal_instalments' as const, 'equal_principal' as const),
    term: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 600 })),
    rate: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 600_000 }),
      fc.integer({ min: 0, max: 10_000_000 }),
      fc.integer({ min: 1, max: 1000 }).map((percent) => percent * 10_000),
    ),
    discountShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    amountUnits: fc.oneof(
      fc.bigInt({ min: 1n, max: 10_000n }),
      fc.bigInt({ min: 1n, max: 100_000_000n }),
      fc.bigInt({ min: 1n, max: 10n ** 15n }),
      // Beyond 2^53 minor units (15 digits of KWD): the exact but slow path of the text and the APR.
      fc.bigInt({ min: 1n, max: 10n ** 18n - 1n }),
    ),
    extraZeros: fc.integer({ min: 0, max: 2 }),
    originationPercent: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10_000_000 })),
    originationFixedUnits: fc.bigInt({ min: 0n, max: 10n ** 8n }),
    monthlyUnits: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 6n })),
    firstDueDate: fc.oneof(
      fc.constant({ rule: 'one_month_after_start' as const }),
      fc.record({
        rule: fc.constant('day_of_month' as const),
        day: fc.integer({ min: 1, max: 31 }),
        minimumDays: fc.integer({ min: 0, max: 60 }),
      }),
    ),
    // From 1 March 100 (earlier years are not calendar dates here) to the 9th millennium.
    startDay: fc.oneof(
      fc.integer({ min: 0, max: 365 * 120 }).map((day) => Date.UTC(1950, 0, 1 + day)),
      fc.integer({ min: 0, max: 365 * 8000 }).map((day) => Date.UTC(100, 2, 1 + day)),
    ),
  })
  .map((loan) => {
    const digits = DIGITS[loan.currency];
    const annualInterestRate = rateText(loan.rate);
    const promoRateDiscount =
      loan.discountShare === undefined ? '0' : rateText(Math.floor(loan.rate * loan.discountShare));
    const product = creditProductSchema.parse({
      name: 'Differential',
      currency: loan.currency,
      secured: false,
      amount: { min: asText(1n, digits), max: '999999999999999' },
      term: { min: 1, max: 600 },
      annualInterestRate,
      promoCodes: ['PROMO'],
      promoRateDiscount,
      amortisation: loan.amortisation,
      fees: {
        originationPercent: rateText(loan.originationPercent),
        originationFixed: asText(loan.originationFixedUnits, digits, loan.extraZeros),
        monthly: asText(loan.monthlyUnits, digits),
      },
      firstDueDate: loan.firstDueDate,
    });
    const startDate = new Date(loan.startDay).toISOString().slice(0, 10);
    const terms: LoanTerms = {
      amount: asText(loan.amountUnits, digits, loan.extraZeros),
      term: loan.term,
      startDate,
      ...(loan.discountShare === undefined ? {} : { promoCode: 'promo' }),
    };
    return { product, terms };
  })
  // Amounts of more than 15 whole digits are not loan terms (termsProblems); keep the rest.
  .filter(({ terms }) => /^\d{1,15}(\.\d+)?$/.test(terms.amount));

describe('schedules in minor units (decision 0072) equal the decimal.js schedules', () => {
  it('on random products and terms', () => {
    let calculated = 0;
    fc.assert(
      fc.property(loans, ({ product, terms }) => {
        if ('schedule' in sameAsTheOracle(product, terms)) calculated++;
      }),
      { numRuns: 1500 },
    );
    // Most draws are schedules, not refusals: the comparison is of amounts, not of error messages.
    expect(calculated).toBeGreaterThan(750);
  });

  it('on an annuity that is exactly a half-cent tie (resolved as the 40-digit figure resolves it)', () => {
    // 14,406.00 over 2 months at 1 %: the exact annuity is 7,212.005 (600 × 1201² / 1200 cents).
    const product = creditProductSchema.parse({
      name: 'Tie',
      currency: 'USD',
      secured: false,
      amount: { min: '1', max: '1000000' },
      term: { min: 1, max: 12 },
      annualInterestRate: '1',
      amortisation: 'equal_instalments',
    });
    const result = sameAsTheOracle(product, { amount: '14406.00', term: 2, startDate: '2026-01-01' });
    expect('schedule' in result).toBe(true);
  });
});
