import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { decimalAmount } from '../decimal-amount.ts';

/**
 * The request fields of payment initiation shared by single and bulk payments (schemas for the API and
 * the use cases) and how budget details travel to the bank. Kept apart from payments.ts so that the
 * workflow bundle never loads zod or ibantools (decision 0033; issue 24, light workflows).
 */

// ─── Request fields shared by single and bulk payments ──────────────────────────────────────────

export const IBAN_MESSAGE = 'not a valid IBAN';
export const ibanSchema = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? value)
  .refine((value) => isValidIBAN(value), IBAN_MESSAGE);

export const amountSchema = decimalAmount({ integerDigits: 12 });

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code, e.g. "BGN"');

/** The creditor and the money: every payment carries these. */
export const paymentOrderSchema = z.object({
  creditorIban: ibanSchema,
  creditorName: z.string().trim().min(1).max(70),
  amount: amountSchema,
  currency: currencySchema,
  remittanceInformation: z.string().trim().min(1).max(140).optional(),
});

// ─── Budget payments (the spec's constants) ─────────────────────────────────────────────────────

/** regulatoryReportType: 1 declaration; 2 inspection act; 3 penalty decree; 4 advance payment;
 * 5 batch property number; 6 enforced collection order; 9 others. */
export const REGULATORY_REPORT_TYPES = ['1', '2', '3', '4', '5', '6', '9'] as const;
export type RegulatoryReportType = (typeof REGULATORY_REPORT_TYPES)[number];

export const REGULATORY_REPORT_TYPE_MESSAGE = 'must be one of 1, 2, 3, 4, 5, 6, 9';
/** The spec writes `^[0-9]{6}?$`: six digits (the `?` makes the sixth optional in a regex; we require six). */
export const PAYMENT_CATEGORY_PATTERN = /^[0-9]{6}$/;
export const PAYMENT_CATEGORY_MESSAGE = 'must be exactly six digits';

/** Accepts 1 or "1". */
export const regulatoryReportTypeSchema = z
  .union([z.string(), z.number()])
  .transform((value) => String(value))
  .refine(
    (value): value is RegulatoryReportType => (REGULATORY_REPORT_TYPES as readonly string[]).includes(value),
    REGULATORY_REPORT_TYPE_MESSAGE,
  )
  .transform((value) => value as RegulatoryReportType);

export const paymentCategorySchema = z.string().regex(PAYMENT_CATEGORY_PATTERN, PAYMENT_CATEGORY_MESSAGE);

/** The budget details of a budget payment (single or a bulk entry). */
export const budgetDetailsSchema = z.object({
  regulatoryReportType: regulatoryReportTypeSchema,
  paymentCategory: paymentCategorySchema,
  /** The number of the document the payment is about (declaration number, act number...). */
  documentNumber: z.string().trim().min(1).max(35).optional(),
  /** YYYY-MM-DD */
  documentDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .optional(),
  /** The obligor's UIC / personal number, when not the debtor. */
  obligorId: z.string().trim().min(1).max(20).optional(),
  obligorName: z.string().trim().min(1).max(70).optional(),
});
export type BudgetDetails = z.infer<typeof budgetDetailsSchema>;

/**
 * How budget details travel to the bank (documented in docs/openbanking.md, "Payment initiation"):
 * Berlin Group 1.3 has no budget fields, so they go in `remittanceInformationStructured` as
 * `{ reference: "<category>", referenceType: "BGBUDGET", referenceIssuer: "<report type>" }` and, for
 * people, in `remittanceInformationUnstructured` as `BUDGET/<type>/<category>[/<doc>/<date>] <text>`.
 */
export function budgetRemittance(details: BudgetDetails, text: string | undefined) {
  const parts = [details.regulatoryReportType, details.paymentCategory];
  if (details.documentNumber) parts.push(details.documentNumber);
  if (details.documentDate) parts.push(details.documentDate);
  const prefix = `BUDGET/${parts.join('/')}`;
  return {
    structured: {
      reference: details.paymentCategory,
      referenceType: 'BGBUDGET',
      referenceIssuer: details.regulatoryReportType,
    },
    unstructured: (text ? `${prefix} ${text}` : prefix).slice(0, 140),
  };
}
