import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CreditProduct,
  type CreditProductInput,
  creditProductSchema,
  minorUnit,
  termsProblems,
} from '../../domain/lending/credit-products.ts';
import {
  calculateSchedule,
  dueDates,
  LoanTermsRefused,
  type Schedule,
} from '../../domain/lending/schedule.ts';

/** The schedule rules of decision 0038 (domain/lending/schedule.ts), without I/O. */

const product = (overrides: Partial<CreditProductInput> = {}): CreditProduct =>
  creditProductSchema.parse({
    name: 'Test loan',
    currency: 'USD',
    secured: false,
    amount: { min: '0.01', max: '10000000.00' },
    term: { min: 1, max: 600 },
    annualInterestRate: '12',
    amortisation: 'equal_instalments',
    ...overrides,
  });

/** Exact enough that a half-minor-unit tie is never blurred. */
const Exact = Decimal.clone({ precision: 40 });

const sumOf = (values: readonly string[]) =>
  values.reduce((total, value) => total.plus(value), new Decimal(0)).toFixed(2);

/** principal + interest of an instalment (the fee is not part of the amortisation). */
const repayment = (instalment: Schedule['instalments'][number]) =>
  new Decimal(instalment.principal).plus(instalment.interest);

describe('published amortisation examples (HP 12C owner’s handbooks)', () => {
  /*
   * The HP 12C rounds each amortised amount to the displayed decimals ("This rounding affects the number
   * inside the calculator as well as how the number appears in the display"), which is our rule: the
   * payment and each period's interest rounded to the cent, principal = payment − interest.
   *
   * HP 12c Platinum User's Guide, Section 3 "Amortization":
   *   https://www.manualslib.com/manual/1582109/Hp-12c-Platinum.html?page=70
   *   http://compsource.manualsonline.com/user-manual/hewlettpackard_1/calculator/12c/page/71
   * $250,000 for 25 years at 5.25 %, monthly payments of $1,498.12:
   *   first year's payments: interest 13,006.53, principal 4,970.91, balance after 1 year 245,029.09;
   *   second year's: interest 12,739.18, principal 5,238.26, balance after 2 years 239,790.83;
   *   first payment: interest 1,093.75, principal 404.37; second: interest 1,091.98, principal 406.14.
   * The same for 30 years: payment 1,380.51; first payment interest 1,093.75, principal 286.76,
   * remaining balance 249,713.24.
   */
  const mortgage = product({ annualInterestRate: '5.25' });

  it('$250,000 at 5.25 % over 25 years', () => {
    const schedule = calculateSchedule(mortgage, { amount: '250000.00', term: 300, startDate: '2026-01-01' });
    const [first, second] = schedule.instalments;
    expect(first).toMatchObject({ principal: '404.37', interest: '1093.75', total: '1498.12' });
    expect(second).toMatchObject({ principal: '406.14', interest: '1091.98', total: '1498.12' });
    const year = (from: number) => schedule.instalments.slice(from, from + 12);
    expect(sumOf(year(0).map((row) => row.interest))).toBe('13006.53');
    expect(sumOf(year(0).map((row) => row.principal))).toBe('4970.91');
    expect(year(0)[11]!.remainingBalance).toBe('245029.09');
    expect(sumOf(year(12).map((row) => row.interest))).toBe('12739.18');
    expect(sumOf(year(12).map((row) => row.principal))).toBe('5238.26');
    expect(year(12)[11]!.remainingBalance).toBe('239790.83');
    expect(schedule.apr).toBe('5.25');
  });

  it('$250,000 at 5.25 % over 30 years', () => {
    const schedule = calculateSchedule(mortgage, { amount: '250000.00', term: 360, startDate: '2026-01-01' });
    expect(schedule.instalments[0]).toMatchObject({
      principal: '286.76',
      interest: '1093.75',
      total: '1380.51',
      remainingBalance: '249713.24',
    });
  });

  /*
   * hp 12c Owner's Handbook, Section 3 "Amortization": a 25-year mortgage for $50,000 at 13¼ % "requires
   * payments of $573.35"; the second year's payments apply 6,570.72 to interest and 309.48 to principal,
   * balance remaining after 2 years 49,419.21; first payment: interest 552.08, principal 21.27; second:
   * interest 551.85, principal 21.50.
   *   https://manualsdump.com/en/manuals/hp-12c_financial_0012c-90001-12c_financial_12caba-12c_financial_f2231aaaba/291580/54
   *   https://www.easymanua.ls/hp/12c-platinum/manual/491174?p=54
   */
  it('$50,000 at 13.25 % over 25 years', () => {
    const schedule = calculateSchedule(product({ annualInterestRate: '13.25' }), {
      amount: '50000.00',
      term: 300,
      startDate: '2026-01-01',
    });
    expect(schedule.instalments[0]).toMatchObject({
      principal: '21.27',
      interest: '552.08',
      total: '573.35',
    });
    expect(schedule.instalments[1]).toMatchObject({
      principal: '21.50',
      interest: '551.85',
      total: '573.35',
    });
    const secondYear = schedule.instalments.slice(12, 24);
    expect(sumOf(secondYear.map((row) => row.interest))).toBe('6570.72');
    expect(sumOf(secondYear.map((row) => row.principal))).toBe('309.48');
    expect(secondYear[11]!.remainingBalance).toBe('49419.21');
  });

  /*
   * hp 12c Solutions Handbook, Lending, "Loan With a Constant Amount Paid Towards Principal", Example 1:
   * a $60,000 land loan at 10 % with equal semi-annual principal payments over 6 years ($5,000 each,
   * 5.00 % a period): first payment interest 3,000.00, total 8,000.00, remaining 55,000.00; second
   * payment interest 2,750.00, total 7,750.00, remaining balance after the first year 50,000.00; seventh
   * payment interest 1,500.00, total 6,500.00, remaining 25,000.00; eighth payment interest 1,250.00,
   * total 6,250.00, remaining balance after the fourth year 20,000.00.
   *   http://38.142.81.21:8001/manual/hp/12c/hp-12c-solutions-handbook-english-e-english/page-21.html
   *   https://manualsdump.com/en/manuals/hp-12c/291586/22
   * Our periods are months, so the same 5 % a period is an annual rate of 60 % over 12 instalments.
   */
  it('$60,000 in 12 equal principal parts at 5 % a period', () => {
    const schedule = calculateSchedule(
      product({ annualInterestRate: '60', amortisation: 'equal_principal' }),
      { amount: '60000.00', term: 12, startDate: '2026-01-01' },
    );
    const row = (number: number) => schedule.instalments[number - 1];
    expect(row(1)).toMatchObject({ principal: '5000.00', interest: '3000.00', total: '8000.00' });
    expect(row(1)!.remainingBalance).toBe('55000.00');
    expect(row(2)).toMatchObject({ interest: '2750.00', total: '7750.00', remainingBalance: '50000.00' });
    expect(row(7)).toMatchObject({ interest: '1500.00', total: '6500.00', remainingBalance: '25000.00' });
    expect(row(8)).toMatchObject({ interest: '1250.00', total: '6250.00', remainingBalance: '20000.00' });
  });
});

describe('schedule properties', () => {
  const currencies = ['USD', 'JPY', 'KWD'] as const;
  /** A product and terms within its bounds; amounts as minor units so every currency is exact. */
  const loans = (options: { minMinorPerMonth: number; maxAnnualRate: number; maxTerm: number }) =>
    fc
      .record({
        currency: fc.constantFrom(...currencies),
        amortisation: fc.constantFrom('equal_instalments' as const, 'equal_principal' as const),
        term: fc.integer({ min: 1, max: options.maxTerm }),
        // Hundredths of a percent.
        rateBasisPoints: fc.integer({ min: 0, max: options.maxAnnualRate * 100 }),
        minorPerMonth: fc.integer({ min: options.minMinorPerMonth, max: 10_000_000 }),
        originationPercent: fc.constantFrom('0', '1', '2.5'),
        monthlyFee: fc.constantFrom('0', '1', '5'),
        startDay: fc.integer({ min: 0, max: 365 * 80 }),
      })
      .map((loan) => {
        const unit = minorUnit(loan.currency);
        const startDate = new Date(Date.UTC(2000, 0, 1 + loan.startDay)).toISOString().slice(0, 10);
        return {
          product: product({
            currency: loan.currency,
            amount: { min: unit.toFixed(unit.decimalPlaces()), max: '999999999999' },
            amortisation: loan.amortisation,
            annualInterestRate: new Decimal(loan.rateBasisPoints).div(100).toString(),
            fees: { originationPercent: loan.originationPercent, monthly: loan.monthlyFee },
          }),
          terms: {
            amount: unit.times(loan.minorPerMonth).times(loan.term).toFixed(unit.decimalPlaces()),
            term: loan.term,
            startDate,
          },
        };
      });

  const holdsTheRules = (schedule: Schedule, product: CreditProduct) => {
    const unit = minorUnit(product.currency);
    const digits = unit.decimalPlaces();
    const rows = schedule.instalments;
    const n = rows.length;
    expect(n).toBe(schedule.term);
    // Principal parts sum exactly to the amount; the balance falls to exactly zero.
    const principal = rows.reduce((total, row) => total.plus(row.principal), new Decimal(0));
    expect(principal.eq(schedule.amount)).toBe(true);
    expect(new Decimal(rows[n - 1]!.remainingBalance).isZero()).toBe(true);
    let balance = new Exact(schedule.amount);
    const annualRate = new Exact(schedule.annualInterestRate);
    const monthlyRate = annualRate.div(1200);
    for (const row of rows) {
      for (const part of [row.principal, row.interest, row.fee, row.total, row.remainingBalance]) {
        expect(new Decimal(part).isNegative()).toBe(false);
      }
      // Interest is the balance's month of interest, rounded half-up to the minor unit.
      const interest = balance.times(annualRate).div(1200);
      expect(row.interest).toBe(interest.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits));
      balance = balance.minus(row.principal);
      expect(new Decimal(row.remainingBalance).eq(balance)).toBe(true);
      expect(new Decimal(row.total).eq(repayment(row).plus(row.fee))).toBe(true);
    }
    const last = rows[n - 1]!;
    if (product.amortisation === 'equal_instalments') {
      const regular = repayment(rows[0]!);
      for (const row of rows.slice(0, -1)) expect(repayment(row).eq(regular)).toBe(true);
      // Documented tolerance: (n + 1) minor units, compounded over the term.
      const tolerance = unit.times(n + 1).times(monthlyRate.plus(1).pow(n));
      if (n > 1) expect(repayment(last).minus(regular).abs().lte(tolerance)).toBe(true);
    } else {
      const regular = new Decimal(rows[0]!.principal);
      for (const row of rows.slice(0, -1)) expect(new Decimal(row.principal).eq(regular)).toBe(true);
      const residue = new Decimal(last.principal).minus(regular);
      if (n > 1) expect(residue.gte(0) && residue.lt(unit.times(n))).toBe(true);
    }
    // Due dates: one per month, strictly increasing.
    for (let index = 1; index < n; index++)
      expect(rows[index]!.dueDate > rows[index - 1]!.dueDate).toBe(true);
    const total = (pick: (row: Schedule['instalments'][number]) => string) =>
      rows.reduce((sum, row) => sum.plus(pick(row)), new Decimal(0));
    expect(total((row) => row.total).eq(schedule.totals.payable)).toBe(true);
    expect(total((row) => row.interest).eq(schedule.totals.interest)).toBe(true);
    expect(total((row) => row.fee).eq(schedule.totals.fees)).toBe(true);
  };

  it('realistic loans: never refused, and every rule holds', () => {
    fc.assert(
      fc.property(
        loans({ minMinorPerMonth: 1_000, maxAnnualRate: 60, maxTerm: 120 }),
        ({ product, terms }) => {
          holdsTheRules(calculateSchedule(product, terms), product);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('any amount of at least one minor unit a month: the rules hold, or the terms are refused by name', () => {
    let refused = 0;
    fc.assert(
      fc.property(loans({ minMinorPerMonth: 1, maxAnnualRate: 200, maxTerm: 360 }), ({ product, terms }) => {
        let schedule: Schedule;
        try {
          schedule = calculateSchedule(product, terms);
        } catch (error) {
          expect(error).toBeInstanceOf(LoanTermsRefused);
          expect((error as LoanTermsRefused).problems).toEqual([
            { field: 'amount', message: expect.stringContaining('cannot be repaid in') },
          ]);
          refused++;
          return;
        }
        holdsTheRules(schedule, product);
      }),
      { numRuns: 200 },
    );
    // Refusals are the tiny-amount, long-term corner (about a fifth of these runs), not the rule.
    expect(refused).toBeLessThan(100);
  });

  it('without fees the APR is the interest rate', () => {
    fc.assert(
      // Large amounts: rounding an instalment to the minor unit moves a small loan's APR visibly.
      fc.property(
        loans({ minMinorPerMonth: 1_000_000, maxAnnualRate: 36, maxTerm: 60 }),
        ({ product, terms }) => {
          const plain = {
            ...product,
            fees: { originationPercent: '0', originationFixed: '0', monthly: '0' },
          };
          const schedule = calculateSchedule(plain, terms);
          expect(new Decimal(schedule.apr).minus(schedule.annualInterestRate).abs().lte('0.01')).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('fees, promo codes and APR', () => {
  const personal = product({
    name: 'Personal 12',
    currency: 'EUR',
    amount: { min: '500.00', max: '20000.00' },
    term: { min: 3, max: 36 },
    annualInterestRate: '12',
    promoCodes: ['spring-26'],
    promoRateDiscount: '2.5',
    fees: { originationPercent: '1.5', originationFixed: '20.00', monthly: '2.00' },
  });

  it('charges the origination fee with the first instalment and the monthly fee with each', () => {
    const schedule = calculateSchedule(personal, { amount: '1000.00', term: 3, startDate: '2026-03-10' });
    // 1.5 % of 1000.00 + 20.00 + 2.00 monthly.
    expect(schedule.instalments.map((row) => row.fee)).toEqual(['37.00', '2.00', '2.00']);
    expect(schedule.totals.fees).toBe('41.00');
    expect(new Decimal(schedule.apr).gt(schedule.annualInterestRate)).toBe(true);
  });

  it('a promo code takes its discount off the rate', () => {
    const terms = { amount: '1000.00', term: 12, startDate: '2026-03-10' };
    const regular = calculateSchedule(personal, terms);
    const promo = calculateSchedule(personal, { ...terms, promoCode: 'Spring-26' });
    expect(regular.annualInterestRate).toBe('12');
    expect(promo.annualInterestRate).toBe('9.5');
    expect(promo.promoCode).toBe('SPRING-26');
    expect(new Decimal(promo.totals.interest).lt(regular.totals.interest)).toBe(true);
  });

  it('zero interest splits the amount with the residue in the last instalment', () => {
    const free = product({ annualInterestRate: '0' });
    const schedule = calculateSchedule(free, { amount: '100.00', term: 3, startDate: '2026-01-01' });
    expect(schedule.instalments.map((row) => row.total)).toEqual(['33.33', '33.33', '33.34']);
    expect(schedule.apr).toBe('0.00');
  });

  it('refuses an amount too small to split into the term’s instalments', () => {
    const free = product({ annualInterestRate: '0' });
    // 1.00 / 60 rounds to 0.02 a month: the balance would be gone after 50 instalments.
    expect(() => calculateSchedule(free, { amount: '1.00', term: 60, startDate: '2026-01-01' })).toThrow(
      'amount cannot be repaid in 60 monthly instalments at 0 %: after rounding to 0.01 USD an instalment ' +
        'before the last would repay the whole balance',
    );
  });

  it('names each offending field of the terms', () => {
    expect(termsProblems(personal, { amount: '20000.01', term: 37, startDate: '2026-02-30' })).toEqual([
      { field: 'amount', message: 'must be between 500.00 and 20000.00 EUR for Personal 12' },
      { field: 'term', message: 'must be a whole number of months between 3 and 36 for Personal 12' },
      { field: 'startDate', message: 'must be a calendar date written YYYY-MM-DD' },
    ]);
    expect(termsProblems(personal, { amount: '1000.001', term: 12, startDate: '2026-01-01' })).toEqual([
      { field: 'amount', message: 'has more than 2 decimals for EUR' },
    ]);
    expect(
      termsProblems(personal, { amount: '1000', term: 12, startDate: '2026-01-01', promoCode: 'X' }),
    ).toEqual([{ field: 'promoCode', message: 'is not a promo code of Personal 12' }]);
    expect(() => calculateSchedule(personal, { amount: '100', term: 12, startDate: '2026-01-01' })).toThrow(
      LoanTermsRefused,
    );
  });

  it('refuses a product whose fields contradict each other, naming them', () => {
    const result = creditProductSchema.safeParse({
      name: 'Bad',
      currency: 'JPY',
      secured: true,
      amount: { min: '1000.5', max: '500' },
      term: { min: 12, max: 6 },
      annualInterestRate: '5',
      promoRateDiscount: '6',
      promoCodes: ['bad'],
      amortisation: 'equal_principal',
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'amount.max',
      'amount.min',
      'promoCodes.0',
      'promoRateDiscount',
      'term.max',
    ]);
  });
});

describe('due dates', () => {
  it('one month after the start, the day kept when the month has it (end of month clamped)', () => {
    expect(dueDates({ rule: 'one_month_after_start' }, '2026-01-31', 4)).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
    ]);
    expect(dueDates({ rule: 'one_month_after_start' }, '2027-11-30', 4)).toEqual([
      '2027-12-30',
      '2028-01-30',
      '2028-02-29',
      '2028-03-30',
    ]);
  });

  it('a day of the month at least some days after the start', () => {
    const rule = { rule: 'day_of_month', day: 15, minimumDays: 10 } as const;
    expect(dueDates(rule, '2026-01-20', 2)).toEqual(['2026-02-15', '2026-03-15']);
    expect(dueDates(rule, '2026-01-05', 2)).toEqual(['2026-01-15', '2026-02-15']);
    // Never on the start day itself; 31 is the month's last day.
    expect(dueDates({ rule: 'day_of_month', day: 31, minimumDays: 0 }, '2026-01-31', 3)).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
    ]);
  });
});
