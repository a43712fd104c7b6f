import { parsePayTime } from '../epay-time.ts';
import type { CustomerDetails } from './customers.ts';

/**
 * Disbursement through the collection gateway (decision 0041): IssueDisbursement pays a loan out as a
 * cash payout (`office/send.cgi`) that the customer collects at a cash desk. Pure rules, safe in
 * workflow code: the payout's INVOICE, what the gateway accepts as amount, currency and recipient, and
 * the payout as the loan keeps it.
 */

/** Currencies the gateway pays out in (docs/collect.md `CURRENCY`). */
export const PAYOUT_CURRENCIES: readonly string[] = ['BGN', 'EUR', 'USD'];

/**
 * The payout's INVOICE: the tenant, the loan and the disbursement attempt (`ten_…-482913675-1`). One
 * per attempt and stable over the registering activity's retries, so the gateway registers it once (the
 * INVOICE is its idempotency key); a payout that expired is issued again under the next attempt.
 */
export const payoutInvoice = (tenantId: string, loanId: string, attempt: number) =>
  `${tenantId}-${loanId}-${attempt}`;

const INVOICE_PATTERN = /^([A-Za-z0-9_]{1,40})-(\d{1,12})-([1-9]\d{0,5})$/;

/** The tenant, loan and attempt of an INVOICE this platform issued; undefined for any other. */
export function parsePayoutInvoice(
  invoice: string,
): { tenantId: string; loanId: string; attempt: number } | undefined {
  const match = INVOICE_PATTERN.exec(invoice);
  if (!match) return undefined;
  return { tenantId: match[1]!, loanId: match[2]!, attempt: Number(match[3]) };
}

/**
 * The loan amount as the gateway's AMOUNT (at most 9 integer digits and 2 decimals, dot-separated);
 * undefined when the amount cannot be paid out exactly that way.
 */
export function payoutAmount(amount: string): string | undefined {
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return undefined;
  const decimals = (match[2] ?? '').replace(/0+$/, '');
  if (decimals.length > 2) return undefined;
  const integer = match[1]!.replace(/^0+(?=\d)/, '');
  if (/^0+$/.test(integer) && decimals === '') return undefined;
  return `${integer}.${decimals.padEnd(2, '0')}`;
}

/** The identity the cash desk checks: the customer's full name and national id as the gateway takes them. */
export interface PayoutRecipient {
  /** RCPT_NAME: 2-100 letters, spaces and `.'-`. */
  name: string;
  /** RCPT_ID: the ssn (else the driver's licence number) without separators, 5-20 letters or digits. */
  id: string;
}

export type RecipientCheck =
  | { ok: true; recipient: PayoutRecipient }
  | { ok: false; field: string; message: string };

/** The payout's recipient from the customer's details, or the detail the gateway would refuse. */
export function recipientOf(details: CustomerDetails): RecipientCheck {
  const name = [details.firstName, details.middleName, details.lastName]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ');
  if (!/^\p{L}[\p{L} .'-]{1,99}$/u.test(name))
    return {
      ok: false,
      field: 'customer.firstName',
      message: "the customer's name must be 2-100 letters, spaces and .'- to be paid out in cash",
    };
  const [field, value] = details.ssn
    ? (['customer.ssn', details.ssn] as const)
    : (['customer.driverLicenseId', details.driverLicenseId ?? ''] as const);
  const id = value.replace(/[\s./-]/g, '').toUpperCase();
  if (!/^[0-9A-Z]{5,20}$/.test(id))
    return {
      ok: false,
      field,
      message:
        'a national id (ssn or driver’s licence) of 5-20 letters or digits is needed to pay out in cash',
    };
  return { ok: true, recipient: { name, id } };
}

/** Where a loan's payout stands. */
export type PayoutState = 'registering' | 'pending' | 'paid' | 'expired' | 'failed';

/** The payout of the current disbursement attempt, as the loan workflow keeps it. */
export interface LoanPayout {
  attempt: number;
  invoice: string;
  amount: string;
  currency: string;
  state: PayoutState;
  /** The gateway's IDN (= SYS_CODE, quoted at the office); null until registered or when not answered. */
  idn: string | null;
  /** The gateway's EXP_TIME (Europe/Sofia, `DD.MM.YYYY hh:mm:ss`). */
  expTime: string | null;
  /** Why it failed or expired. */
  reason?: string | undefined;
}

/**
 * The UTC date (a loan's dates are UTC days) of a notification's PAY_TIME (`YYYYMMDDhhmmss`, Sofia time),
 * or undefined when malformed. Its Sofia date taken for the UTC one dated a payout collected after 22:00 UTC
 * (21:00 in summer) the next day, and refused that day's repayments as before the disbursement.
 */
export function payDateOf(payTime: string | undefined): string | undefined {
  return parsePayTime(payTime ?? '')
    ?.toISOString()
    .slice(0, 10);
}
