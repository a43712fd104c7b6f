import { Decimal } from 'decimal.js';
import {
  type AmortisationMethod,
  annualRateFor,
  type CreditProduct,
  type FirstDueDateRule,
  isCalendarDate,
  type LoanTerms,
  minorUnit,
  minorUnitDigits,
  normalisePromoCode,
  type TermsProblem,
  termsProblems,
} from './credit-products.ts';

/**
 * The repayment schedule of a loan (decision 0038). Pure and deterministic (no I/O, no clock), so the
 * API (Customer/Loans/Calculate) and the loan workflow compute the very same schedule.
 *
 * Arithmetic: exact, in integer minor units (bigint; decision 0072). Amounts are rounded to the
 * currency's minor unit only where the rules below say so, and every other figure is a sum or
 * difference of rounded ones:
 *  - the monthly rate is the nominal annual rate / 12 (each instalment is one regular month of
 *    interest, whatever the length of the first period; no odd-days interest);
 *  - interest of an instalment = remaining balance × monthly rate, rounded half-up to the minor unit;
 *  - equal_instalments: the regular instalment (principal + interest) is the annuity
 *    A·r / (1 − (1 + r)^−n), rounded half-up; its principal part is the instalment less its interest;
 *  - equal_principal: the regular principal part is A / n rounded down;
 *  - the last instalment repays the whole remaining balance, so the principal parts sum to the amount
 *    exactly and the balance ends at zero; it absorbs the rounding residue: for equal_principal it is
 *    at least the regular part and less than n minor units above it; for equal_instalments its
 *    principal + interest differs from the regular instalment by at most (n + 1) minor units × (1 + r)^n
 *    (each earlier rounding moves the balance by at most one minor unit, compounded to the end);
 *  - terms for which rounding would leave an instalment before the last repaying no principal, or the
 *    whole balance, are refused (`amount`): such a loan cannot be split into n instalments of the kind;
 *  - fees: the origination fee (percent of the amount rounded half-up, plus the fixed part) is due with
 *    the first instalment, the monthly fee with every instalment; fees are never financed (no interest).
 *
 * Every figure but the annuity is a ratio of integers rounded once, so integer division gives it
 * exactly. The annuity alone is irrational in general ((1 + r)^−n): it is computed once per schedule in
 * decimal.js at 40 significant digits, as it always was, so a half-minor-unit tie resolves as before.
 *
 * This is the rounding of the HP 12C financial calculator (its AMORT rounds each period's interest to the
 * display's decimals): test/lending/schedule.test.ts reproduces the published examples of its manual.
 */

/** 40 significant digits: the annuity factor is exact far beyond a half-minor-unit tie. */
const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export interface Instalment {
  number: number;
  /** YYYY-MM-DD. */
  dueDate: string;
  principal: string;
  interest: string;
  fee: string;
  /** principal + interest + fee: what is due on `dueDate`. */
  total: string;
  /** Principal still owed after this instalment is paid. */
  remainingBalance: string;
}

export interface Schedule {
  productName: string;
  currency: string;
  amortisation: AmortisationMethod;
  amount: string;
  term: number;
  startDate: string;
  /** The promo code the schedule was calculated under, if any (its discount is in the rate). */
  promoCode?: string;
  /** Nominal annual rate in percent applied (the product's, less a promo discount). */
  annualInterestRate: string;
  instalments: Instalment[];
  totals: { principal: string; interest: string; fees: string; payable: string };
  /**
   * Annual percentage rate in percent, 2 decimals: 12 × the monthly rate at which the instalments'
   * present value equals the amount (regular monthly periods). Equals the interest rate without fees.
   */
  apr: string;
}

/** Terms a schedule cannot be calculated for; `problems` name the offending fields. */
export class LoanTermsRefused extends Error {
  constructor(readonly problems: TermsProblem[]) {
    super(problems.map((problem) => `${problem.field} ${problem.message}`).join('; '));
    this.name = 'LoanTermsRefused';
  }
}

/**
 * How far ahead of today (UTC) a loan may start (Calculate, Create): a year. With the longest term a
 * product may have (600 months) every due date stays far from year 9999, where dates stop being dates.
 */
export const MAX_START_AHEAD_DAYS = 366;

/** What is wrong with a loan starting on `startDate` (a calendar date) seen on `today`; undefined: nothing. */
export function startDateProblem(startDate: string, today: string): string | undefined {
  const latest = formatDate(addDays(parseDate(today), MAX_START_AHEAD_DAYS));
  return startDate > latest
    ? `must be at most ${MAX_START_AHEAD_DAYS} days after today (${latest})`
    : undefined;
}

/** Rates in ten-thousandths of a percent: product rates and discounts have at most 4 decimals. */
const RATE_DIGITS = 4;
/** Monthly interest in minor units = balance × rate (in 1e-4 %) / MONTHLY_RATE_DIVISOR, half-up. */
const MONTHLY_RATE_DIVISOR = 12n * 100n * 10n ** BigInt(RATE_DIGITS);
const TWICE_MONTHLY_RATE_DIVISOR = 2n * MONTHLY_RATE_DIVISOR;
/** Origination fee in minor units = amount × percent (in 1e-4 %) / PERCENT_DIVISOR. */
const PERCENT_DIVISOR = 100n * 10n ** BigInt(RATE_DIGITS);

/** `numerator / denominator` rounded half-up (both non-negative). */
const divideHalfUp = (numerator: bigint, denominator: bigint) =>
  (2n * numerator + denominator) / (2n * denominator);

/**
 * Decimal text as an integer count of 10^−digits: "12.50" with 2 digits is 1250n. Digits beyond
 * `digits` must be zeros: amounts were checked against the currency (termsProblems, creditProductSchema).
 */
function toUnits(text: string, digits: number): bigint {
  const [whole = '', fraction = '', ...rest] = text.split('.');
  if (
    rest.length > 0 ||
    !/^\d+$/.test(whole) ||
    !/^\d*$/.test(fraction) ||
    /[^0]/.test(fraction.slice(digits))
  ) {
    throw new RangeError(`not a decimal with at most ${digits} decimals: ${text}`);
  }
  return BigInt(whole + fraction.slice(0, digits).padEnd(digits, '0'));
}

/** Zeros that pad a fraction to the currency's digits (at most 3), by how many are missing. */
const ZEROS = ['', '0', '00', '000'];

/** Minor units as decimal text with the currency's digits, as decimal.js toFixed(digits) wrote it. */
function moneyText(units: bigint, digits: number): string {
  const value = Number(units);
  // A schedule writes five amounts an instalment: safe integers take the quick way (no bigint text).
  if (Number.isSafeInteger(value) && value >= 0) {
    if (digits === 0) return String(value);
    const scale = 10 ** digits;
    const fraction = String(value % scale);
    return `${(value - (value % scale)) / scale}.${ZEROS[digits - fraction.length]}${fraction}`;
  }
  if (digits === 0) return units.toString();
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(digits + 1, '0');
  return `${negative ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** The schedule of a loan under `product` and `terms`; throws LoanTermsRefused for terms it refuses. */
export function calculateSchedule(product: CreditProduct, terms: LoanTerms): Schedule {
  const problems = termsProblems(product, terms);
  if (problems.length > 0) throw new LoanTermsRefused(problems);
  const digits = minorUnitDigits(product.currency);
  const text = (units: bigint) => moneyText(units, digits);
  const amount = toUnits(terms.amount, digits);
  const n = terms.term;
  const promoCode = terms.promoCode === undefined ? undefined : normalisePromoCode(terms.promoCode);
  const annualRate = annualRateFor(product, { promoCode });
  const parts = repaymentParts(product.amortisation, amount, n, annualRate, digits);
  if ('refused' in parts) {
    throw new LoanTermsRefused([
      {
        field: 'amount',
        message:
          `cannot be repaid in ${n} monthly instalments at ${annualRate.toString()} %: after rounding to ` +
          `${minorUnit(product.currency).toFixed(digits)} ${product.currency} an instalment before the ` +
          `last would repay ${parts.refused}`,
      },
    ]);
  }

  const monthlyFee = toUnits(product.fees.monthly, digits);
  const originationFee =
    divideHalfUp(amount * toUnits(product.fees.originationPercent, RATE_DIGITS), PERCENT_DIVISOR) +
    toUnits(product.fees.originationFixed, digits);
  const dates = dueDates(product.firstDueDate, terms.startDate, n);
  const monthlyFeeText = text(monthlyFee);
  const payments: number[] = [];
  let interestTotal = 0n;
  const instalments = parts.map(({ principal, interest, balance }, index): Instalment => {
    const fee = index === 0 ? originationFee + monthlyFee : monthlyFee;
    const total = principal + interest + fee;
    interestTotal += interest;
    payments.push(moneyNumber(total, digits));
    return {
      number: index + 1,
      dueDate: dates[index]!,
      principal: text(principal),
      interest: text(interest),
      fee: index === 0 ? text(fee) : monthlyFeeText,
      total: text(total),
      remainingBalance: text(balance),
    };
  });
  // The principal parts sum to the amount (the last one is the balance left); fees are never financed.
  const feesTotal = originationFee + monthlyFee * BigInt(n);

  return {
    productName: product.name,
    currency: product.currency,
    amortisation: product.amortisation,
    amount: text(amount),
    term: n,
    startDate: terms.startDate,
    ...(promoCode === undefined ? {} : { promoCode }),
    annualInterestRate: annualRate.toString(),
    instalments,
    totals: {
      principal: text(amount),
      interest: text(interestTotal),
      fees: text(feesTotal),
      payable: text(amount + interestTotal + feesTotal),
    },
    apr: aprOf(moneyNumber(amount, digits), payments, annualRate.toNumber()),
  };
}

/**
 * Minor units as the double nearest the amount, as Number("1234.56") reads its text: below 2^53 both
 * operands are exact doubles and IEEE division rounds the exact quotient once, as parsing does.
 */
function moneyNumber(units: bigint, digits: number): number {
  const value = Number(units);
  return Number.isSafeInteger(value) ? value / 10 ** digits : Number(moneyText(units, digits));
}

/**
 * Principal and interest of each instalment in minor units, or why the amount cannot be split so (an
 * instalment before the last would repay nothing, or everything, once rounded).
 */
function repaymentParts(
  method: AmortisationMethod,
  amount: bigint,
  n: number,
  annualRate: Decimal,
  digits: number,
): { principal: bigint; interest: bigint; balance: bigint }[] | { refused: string } {
  const rate = toUnits(annualRate.toFixed(), RATE_DIGITS);
  // divideHalfUp(balance × rate, MONTHLY_RATE_DIVISOR) with its constant parts taken out of the loop.
  const twiceRate = 2n * rate;
  const regular =
    method === 'equal_instalments'
      ? n > 1
        ? regularInstalment(amount, n, annualRate, digits)
        : 0n
      : // Rounded down, so the last part (the residue) is never smaller than the regular one.
        amount / BigInt(n);
  const parts: { principal: bigint; interest: bigint; balance: bigint }[] = [];
  let balance = amount;
  for (let number = 1; number <= n; number++) {
    const interest = (balance * twiceRate + MONTHLY_RATE_DIVISOR) / TWICE_MONTHLY_RATE_DIVISOR;
    if (number === n) {
      parts.push({ principal: balance, interest, balance: 0n });
      break;
    }
    const principal = method === 'equal_instalments' ? regular - interest : regular;
    if (principal <= 0n) return { refused: 'no principal' };
    if (principal >= balance) return { refused: 'the whole balance' };
    balance -= principal;
    parts.push({ principal, interest, balance });
  }
  return parts;
}

/**
 * The regular instalment of equal_instalments in minor units: the annuity rounded half-up. Computed in
 * decimal.js at 40 significant digits (decision 0038): the exact annuity can be a half-minor-unit tie
 * that the 40-digit figure resolves one way or the other, and schedules already calculated keep theirs.
 */
function regularInstalment(amount: bigint, n: number, annualRate: Decimal, digits: number): bigint {
  if (annualRate.isZero()) return divideHalfUp(amount, BigInt(n));
  const rate = new Exact(annualRate).div(1200);
  const annuity = new Exact(moneyText(amount, digits))
    .times(rate)
    .div(new Exact(1).minus(rate.plus(1).pow(-n)));
  return toUnits(annuity.toFixed(digits, Decimal.ROUND_HALF_UP), digits);
}

/**
 * APR (see Schedule.apr): 12 × the monthly internal rate of return. The search runs in binary floating
 * point: the APR is a rate shown with 2 decimals, not an amount of money (amounts stay exact), and
 * doubles carry 15-16 significant digits, far beyond the hundredth of a percent; in 20-digit decimals
 * the search took about three quarters of a 360-instalment schedule's CPU (issue 24). Newton's method
 * from the interest rate, kept inside a bracket that always holds the root (a step leaving it bisects
 * instead), so it converges in a few steps and never diverges.
 */
function aprOf(principal: number, payments: readonly number[], annualRate: number): string {
  /** Present value of the instalments less the amount, and its derivative, at a monthly rate. */
  const excess = (monthlyRate: number) => {
    const discount = 1 / (1 + monthlyRate);
    let factor = 1;
    let value = 0;
    let slope = 0;
    for (let index = 0; index < payments.length; index++) {
      factor *= discount;
      value += factor * payments[index]!;
      slope -= factor * discount * payments[index]! * (index + 1);
    }
    return { value: value - principal, slope };
  };
  // The excess falls as the rate grows; at rate 0 it is instalments − amount (never negative).
  let low = 0;
  let high = 1;
  while (excess(high).value > 0 && high < 1e6) high *= 2;
  let rate = Math.min(Math.max(annualRate / 1200, low), high);
  for (let step = 0; step < 200 && high - low > 1e-13; step++) {
    const { value, slope } = excess(rate);
    if (value === 0) break;
    if (value > 0) low = rate;
    else high = rate;
    // A flat slope (no instalments left to discount) cannot happen with a positive amount; bisect then.
    const next = slope === 0 ? (low + high) / 2 : rate - value / slope;
    const converged = Math.abs(next - rate) < 1e-15;
    rate = next > low && next < high ? next : (low + high) / 2;
    if (converged) break;
  }
  // Rounded from the shortest decimal that reads back as the double, not from its binary expansion.
  return new Decimal(String(rate * 1200)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}

// --- Due dates -------------------------------------------------------------------------------------

interface CalendarDate {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
}

const parseDate = (text: string): CalendarDate => {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return { year, month, day };
};

/** "00" to "31": a schedule writes a date an instalment. */
const TWO_DIGITS = Array.from({ length: 32 }, (_, value) => String(value).padStart(2, '0'));

const formatDate = ({ year, month, day }: CalendarDate) =>
  `${year >= 1000 ? year : String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Gregorian calendar; isCalendarDate refuses years before 100 (Date.UTC reads them as 19xx). */
const daysInMonth = (year: number, month: number) =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS_IN_MONTH[month - 1]!;

/**
 * The date `months` calendar months after (year, month), on `day` or, when that month is shorter, on
 * its last day. Always counted from the same anchor, so 31 January gives 28/29 February, 31 March,
 * 30 April... (a short month never shifts the later due dates).
 */
function monthsAfter(anchor: CalendarDate, months: number, day: number): CalendarDate {
  const index = anchor.year * 12 + (anchor.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: Math.min(day, daysInMonth(year, month)) };
}

const addDays = (date: CalendarDate, days: number): CalendarDate => {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
};

const compareDates = (a: CalendarDate, b: CalendarDate) =>
  a.year - b.year || a.month - b.month || a.day - b.day;

/** The `count` monthly due dates (YYYY-MM-DD) of a loan starting on `startDate` under `rule`. */
export function dueDates(rule: FirstDueDateRule, startDate: string, count: number): string[] {
  if (!isCalendarDate(startDate)) throw new RangeError(`not a calendar date: ${startDate}`);
  const start = parseDate(startDate);
  const dates: string[] = [];
  if (rule.rule === 'one_month_after_start') {
    for (let k = 1; k <= count; k++) dates.push(formatDate(monthsAfter(start, k, start.day)));
    return dates;
  }
  // Never on the start day itself: a first instalment charges a month of interest.
  const earliest = addDays(start, Math.max(1, rule.minimumDays));
  let first = monthsAfter(earliest, 0, rule.day);
  if (compareDates(first, earliest) < 0) first = monthsAfter(earliest, 1, rule.day);
  for (let k = 0; k < count; k++) dates.push(formatDate(monthsAfter(first, k, rule.day)));
  return dates;
}
