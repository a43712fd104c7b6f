import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { decimalAmount } from '../decimal-amount.ts';

/**
 * Credit products of the lending platform (decision 0038). The spec names only the product's `Name`
 * (required to issue a loan) and says that a promo code may stand in for it in Calculate and
 * Loans/Create; every other field here is our design. Pure (no I/O): the API, the loan workflow and the
 * schedule calculation (schedule.ts) share it.
 *
 * Amounts and rates are decimal strings (never floats): amounts in the currency's major unit with at
 * most its minor-unit digits ("1500.00" EUR), rates in percent per year ("12.5" = 12.5 %).
 */

/** How the principal is repaid. */
export const AMORTISATION_METHODS = ['equal_instalments', 'equal_principal'] as const;
export type AmortisationMethod = (typeof AMORTISATION_METHODS)[number];

/** ISO 4217 currencies whose minor unit is not 2 digits (the rest have cents). */
const MINOR_UNIT_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

/** Digits of the currency's minor unit (ISO 4217): 2 unless listed above. */
export const minorUnitDigits = (currency: string): number => MINOR_UNIT_DIGITS[currency] ?? 2;

/** The currency's smallest amount, e.g. 0.01 for EUR, 1 for JPY. */
export const minorUnit = (currency: string): Decimal => new Decimal(10).pow(-minorUnitDigits(currency));

/**
 * What is wrong with `amount` as money in `currency`: more decimals than its minor unit (refused,
 * never rounded); undefined when it fits. `amount` is decimal text already checked for its shape.
 */
export function minorUnitProblem(amount: string, currency: string): string | undefined {
  const digits = minorUnitDigits(currency);
  return new Decimal(amount).decimalPlaces() > digits
    ? `has more than ${digits} decimals for ${currency}`
    : undefined;
}

const DECIMAL_TEXT = /^\d{1,15}(\.\d{1,6})?$/;

/** An amount of a product's definition: exact, 0 allowed (shape and minor units: decimal-amount.ts, below). */
const decimalText = () => decimalAmount({ decimals: 6, min: 'non-negative' });

/** A rate in percent per year, 0 to 1000, at most 4 decimals. */
const percent = z
  .string()
  .trim()
  .regex(/^\d{1,4}(\.\d{1,4})?$/, 'must be a percentage like 12.5 (at most 4 decimals)')
  .refine((text) => new Decimal(text).lte(1000), 'must be at most 1000');

/** A promo code: letters, digits, `-` and `_`; matched without regard to case. */
export const PROMO_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$/;

/** Promo codes are compared in upper case (customers type them by hand). */
export const normalisePromoCode = (code: string) => code.trim().toUpperCase();

const monthCount = z.number().int().min(1).max(600);

/**
 * When the first instalment falls due; later ones follow monthly (schedule.ts `dueDates`):
 * - `one_month_after_start`: one calendar month after the start date (31 January → 28/29 February);
 * - `day_of_month`: the first `day` (31 = the month's last day) at least `minimumDays` (and at least
 *   one) after the start, e.g. every 15th with at least 10 days before the first one.
 */
export const firstDueDateRuleSchema = z.discriminatedUnion('rule', [
  z.object({ rule: z.literal('one_month_after_start') }),
  z.object({
    rule: z.literal('day_of_month'),
    day: z.number().int().min(1).max(31),
    minimumDays: z.number().int().min(0).max(60).default(0),
  }),
]);
export type FirstDueDateRule = z.infer<typeof firstDueDateRuleSchema>;

export const creditProductFeesSchema = z.object({
  /** Percent of the amount, charged with the first instalment. */
  originationPercent: percent.default('0'),
  /** Fixed amount, charged with the first instalment (added to the percentage). */
  originationFixed: decimalText().default('0'),
  /** Fixed amount charged with every instalment. */
  monthly: decimalText().default('0'),
});
export type CreditProductFees = z.infer<typeof creditProductFeesSchema>;

const boundsOf = <T extends z.ZodType>(value: T) => z.object({ min: value, max: value });

/**
 * A document group a product requires before its loans are approved (UserDocuments, docs/lending.md
 * "Files and user documents"): `groupId` is the group across the tenant's products (`id-card` is the
 * same group in every product naming it).
 */
export const documentGroupSchema = z.object({
  groupId: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'lower-case letters, digits, - and _ (at most 50)'),
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(500).optional(),
});
export type DocumentGroup = z.output<typeof documentGroupSchema>;

/** The fields of a credit product, each checked on its own (creditProductSchema adds the cross-checks). */
export const creditProductFieldsSchema = z.object({
  /** The spec's `Name`: unique per tenant, what a loan is issued under. */
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2000).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like EUR'),
  /** A secured loan goes to Collateral when processed (the spec's transition table). */
  secured: z.boolean(),
  /** States it is offered in; empty: every state. Matched without regard to case. */
  states: z.array(z.string().trim().min(1).max(50)).max(100).default([]),
  /** Codes that may stand in for the Name (Calculate, Loans/Create); unique per tenant. */
  promoCodes: z
    .array(z.string().trim().regex(PROMO_CODE_PATTERN, 'letters, digits, - and _ (at most 50)'))
    .max(100)
    .default([])
    .transform((codes) => [...new Set(codes.map(normalisePromoCode))]),
  /** Percentage points taken off `annualInterestRate` when a loan is calculated under a promo code. */
  promoRateDiscount: percent.default('0'),
  /** Loan amount bounds, inclusive, in the currency. */
  amount: boundsOf(decimalText()),
  /** Term bounds, inclusive, in months: one instalment a month. */
  term: boundsOf(monthCount),
  /** Nominal annual interest rate in percent; the monthly rate is a twelfth of it. */
  annualInterestRate: percent,
  amortisation: z.enum(AMORTISATION_METHODS),
  fees: creditProductFeesSchema.default({ originationPercent: '0', originationFixed: '0', monthly: '0' }),
  firstDueDate: firstDueDateRuleSchema.default({ rule: 'one_month_after_start' }),
  /** Document groups each needing a file of the customer before a loan of it is approved. */
  requiredDocuments: z
    .array(documentGroupSchema)
    .max(20)
    .default([])
    .refine(
      (groups) => new Set(groups.map((group) => group.groupId)).size === groups.length,
      'each groupId once',
    ),
});

/** A credit product: its fields, and the rules between them (bounds in order, decimals of the currency). */
export const creditProductSchema = creditProductFieldsSchema.superRefine((product, context) => {
  const problem = (path: (string | number)[], message: string) =>
    context.addIssue({ code: 'custom', path, message });
  const digits = minorUnitDigits(product.currency);
  const money: [string[], string][] = [
    [['amount', 'min'], product.amount.min],
    [['amount', 'max'], product.amount.max],
    [['fees', 'originationFixed'], product.fees.originationFixed],
    [['fees', 'monthly'], product.fees.monthly],
  ];
  for (const [path, text] of money) {
    if (DECIMAL_TEXT.test(text) && new Decimal(text).decimalPlaces() > digits) {
      problem(path, `has more than ${digits} decimals for ${product.currency}`);
    }
  }
  if (DECIMAL_TEXT.test(product.amount.min) && new Decimal(product.amount.min).lte(0)) {
    problem(['amount', 'min'], 'must be greater than zero');
  }
  if (
    DECIMAL_TEXT.test(product.amount.min) &&
    DECIMAL_TEXT.test(product.amount.max) &&
    new Decimal(product.amount.min).gt(product.amount.max)
  ) {
    problem(['amount', 'max'], 'must not be below amount.min');
  }
  if (product.term.min > product.term.max) problem(['term', 'max'], 'must not be below term.min');
  if (new Decimal(product.promoRateDiscount).gt(product.annualInterestRate)) {
    problem(['promoRateDiscount'], 'must not exceed annualInterestRate');
  }
  const name = normalisePromoCode(product.name);
  product.promoCodes.forEach((code, index) => {
    if (code === name) problem(['promoCodes', index], 'must differ from the product name');
  });
});

/** A credit product as stored and offered (defaults applied). */
export type CreditProduct = z.output<typeof creditProductSchema>;
/** A credit product as an operator writes it (defaults may be left out). */
export type CreditProductInput = z.input<typeof creditProductSchema>;

/** The groups a product requires (none for a product stored before groups existed). */
export const requiredDocumentsOf = (product: CreditProduct): DocumentGroup[] =>
  product.requiredDocuments ?? [];

/** Whether the product is offered in `state` (no state given, or a product for every state: yes). */
export function offeredInState(product: CreditProduct, state: string | undefined): boolean {
  if (!state?.trim() || product.states.length === 0) return true;
  const wanted = state.trim().toUpperCase();
  return product.states.some((offered) => offered.toUpperCase() === wanted);
}

/**
 * The promo code `nameOrPromoCode` names on this product, or undefined when it is the product's Name
 * (or names nothing of it). The Name wins: a text that is both is read as the Name.
 */
export function promoCodeOf(product: CreditProduct, nameOrPromoCode: string): string | undefined {
  if (nameOrPromoCode.trim() === product.name) return undefined;
  const code = normalisePromoCode(nameOrPromoCode);
  return product.promoCodes.includes(code) ? code : undefined;
}

/** What a customer asks for: the spec's loan "terms" (schedule.ts computes their schedule). */
export interface LoanTerms {
  /** Decimal text in the product's currency, e.g. "5000.00". */
  amount: string;
  /** Number of monthly instalments. */
  term: number;
  /** Calendar date (YYYY-MM-DD) the loan starts (is disbursed); due dates follow from it. */
  startDate: string;
  /** The promo code the customer named instead of the product's Name (see promoCodeOf). */
  promoCode?: string | undefined;
}

/** One offending field of loan terms (the API answers them as `fields` of a 400). */
export interface TermsProblem {
  field: 'amount' | 'term' | 'startDate' | 'promoCode';
  message: string;
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(text: string): boolean {
  const match = CALENDAR_DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Everything wrong with `terms` for `product` (empty: acceptable). Messages name the bounds. */
export function termsProblems(product: CreditProduct, terms: LoanTerms): TermsProblem[] {
  const problems: TermsProblem[] = [];
  const { currency } = product;
  const digits = minorUnitDigits(currency);
  const wellFormed = /^\d{1,15}(\.\d+)?$/.test(terms.amount);
  const tooPrecise = wellFormed ? minorUnitProblem(terms.amount, currency) : undefined;
  if (!wellFormed) {
    problems.push({ field: 'amount', message: 'must be a positive decimal amount like 1500.00' });
  } else if (tooPrecise) {
    problems.push({ field: 'amount', message: tooPrecise });
  } else if (
    new Decimal(terms.amount).lt(product.amount.min) ||
    new Decimal(terms.amount).gt(product.amount.max)
  ) {
    const [min, max] = [product.amount.min, product.amount.max].map((bound) =>
      new Decimal(bound).toFixed(digits),
    );
    problems.push({
      field: 'amount',
      message: `must be between ${min} and ${max} ${currency} for ${product.name}`,
    });
  }
  if (!Number.isInteger(terms.term) || terms.term < product.term.min || terms.term > product.term.max) {
    problems.push({
      field: 'term',
      message: `must be a whole number of months between ${product.term.min} and ${product.term.max} for ${product.name}`,
    });
  }
  if (!isCalendarDate(terms.startDate)) {
    problems.push({ field: 'startDate', message: 'must be a calendar date written YYYY-MM-DD' });
  }
  if (terms.promoCode !== undefined && !product.promoCodes.includes(normalisePromoCode(terms.promoCode))) {
    problems.push({ field: 'promoCode', message: `is not a promo code of ${product.name}` });
  }
  return problems;
}

/** The nominal annual rate (percent) a loan under `terms` pays: the product's, less a promo discount. */
export function annualRateFor(product: CreditProduct, terms: Pick<LoanTerms, 'promoCode'>): Decimal {
  const rate = new Decimal(product.annualInterestRate);
  if (terms.promoCode === undefined) return rate;
  return Decimal.max(0, rate.minus(product.promoRateDiscount));
}
