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
  termsProblems,
} from '../../domain/lending/credit-products.ts';
import { LoanTermsRefused, type Schedule } from '../../domain/lending/schedule.ts';

/**
 * The oracle of the differential test (schedule-differential.test.ts): domain/lending/schedule.ts as it
 * was before decision 0072, every amount a decimal.js Decimal at 40 significant digits. Kept verbatim
 * (less the exports the API uses) so the integer implementation is held to its every cent.
 */

const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
type Amount = InstanceType<typeof Exact>;

/** The schedule of a loan under `product` and `terms`; throws LoanTermsRefused for terms it refuses. */
export function decimalSchedule(product: CreditProduct, terms: LoanTerms): Schedule {
  const problems = termsProblems(product, terms);
  if (problems.length > 0) throw new LoanTermsRefused(problems);
  const digits = minorUnitDigits(product.currency);
  const round = (value: Amount) => value.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  const text = (value: Amount) => value.toFixed(digits);
  const amount = new Exact(terms.amount);
  const n = terms.term;
  const promoCode = terms.promoCode === undefined ? undefined : normalisePromoCode(terms.promoCode);
  const annualRate = annualRateFor(product, { promoCode });
  const parts = repaymentParts(product.amortisation, amount, n, new Exact(annualRate), digits);
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

  const monthlyFee = new Exact(product.fees.monthly);
  const originationFee = round(amount.times(product.fees.originationPercent).div(100)).plus(
    product.fees.originationFixed,
  );
  const dates = dueDates(product.firstDueDate, terms.startDate, n);
  let balance = amount;
  const instalments = parts.map(({ principal, interest }, index) => {
    balance = balance.minus(principal);
    const fee = index === 0 ? originationFee.plus(monthlyFee) : monthlyFee;
    return {
      number: index + 1,
      dueDate: dates[index]!,
      principal,
      interest,
      fee,
      total: principal.plus(interest).plus(fee),
      remainingBalance: balance,
    };
  });
  const sum = (pick: (instalment: (typeof instalments)[number]) => Amount) =>
    instalments.reduce((total, instalment) => total.plus(pick(instalment)), new Exact(0));

  return {
    productName: product.name,
    currency: product.currency,
    amortisation: product.amortisation,
    amount: text(amount),
    term: n,
    startDate: terms.startDate,
    ...(promoCode === undefined ? {} : { promoCode }),
    annualInterestRate: annualRate.toString(),
    instalments: instalments.map((instalment) => ({
      number: instalment.number,
      dueDate: instalment.dueDate,
      principal: text(instalment.principal),
      interest: text(instalment.interest),
      fee: text(instalment.fee),
      total: text(instalment.total),
      remainingBalance: text(instalment.remainingBalance),
    })),
    totals: {
      principal: text(sum((instalment) => instalment.principal)),
      interest: text(sum((instalment) => instalment.interest)),
      fees: text(sum((instalment) => instalment.fee)),
      payable: text(sum((instalment) => instalment.total)),
    },
    apr: aprOf(
      amount,
      instalments.map((instalment) => instalment.total),
      new Exact(annualRate),
    ),
  };
}

/**
 * Principal and interest of each instalment, or why the amount cannot be split so (an instalment
 * before the last would repay nothing, or everything, once rounded).
 */
function repaymentParts(
  method: AmortisationMethod,
  amount: Amount,
  n: number,
  annualRate: Amount,
  digits: number,
): { principal: Amount; interest: Amount }[] | { refused: string } {
  const round = (value: Amount) => value.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  const rate = annualRate.div(1200);
  const regularInstalment = rate.isZero()
    ? round(amount.div(n))
    : round(amount.times(rate).div(new Exact(1).minus(rate.plus(1).pow(-n))));
  // Rounded down, so the last part (the residue) is never smaller than the regular one.
  const regularPrincipal = amount.div(n).toDecimalPlaces(digits, Decimal.ROUND_DOWN);
  const parts: { principal: Amount; interest: Amount }[] = [];
  let balance = amount;
  for (let number = 1; number <= n; number++) {
    // Multiplied before dividing: a tie (…5 exactly) stays exact and is rounded up, as it must be.
    const interest = round(balance.times(annualRate).div(1200));
    if (number === n) {
      parts.push({ principal: balance, interest });
      break;
    }
    const principal = method === 'equal_instalments' ? regularInstalment.minus(interest) : regularPrincipal;
    if (principal.lte(0)) return { refused: 'no principal' };
    if (principal.gte(balance)) return { refused: 'the whole balance' };
    parts.push({ principal, interest });
    balance = balance.minus(principal);
  }
  return parts;
}

/**
 * APR (see Schedule.apr): 12 × the monthly internal rate of return. The search runs in binary floating
 * point: the APR is a rate shown with 2 decimals, not an amount of money (amounts stay exact decimals),
 * and doubles carry 15-16 significant digits, far beyond the hundredth of a percent; in 20-digit
 * decimals the search took about three quarters of a 360-instalment schedule's CPU (issue 24). Newton's
 * method from the interest rate, kept inside a bracket that always holds the root (a step leaving it
 * bisects instead), so it converges in a few steps and never diverges.
 */
function aprOf(amount: Amount, totals: readonly Amount[], annualRate: Amount): string {
  const principal = amount.toNumber();
  const payments = totals.map((total) => total.toNumber());
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
  let rate = Math.min(Math.max(annualRate.toNumber() / 1200, low), high);
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

const formatDate = ({ year, month, day }: CalendarDate) =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

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
function dueDates(rule: FirstDueDateRule, startDate: string, count: number): string[] {
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
