import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { isSmsRecipient, SMS_RECIPIENT_RULE } from '../phone-numbers.ts';

/**
 * A lending customer's personal details, the rules for what makes them complete, and the search
 * normalisations (decision 0037). Pure: no I/O, safe to import from workflows.
 *
 * The spec shows none of these fields; they are our design. Every field is optional in a request, so
 * a customer can fill the details step by step; `customerDetailsComplete` says when a loan application
 * may leave Pre-Origination.
 */

/** A calendar date `YYYY-MM-DD` that exists (2024-02-30 does not). */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'not a calendar date');

const name = z.string().trim().min(1).max(100);

/**
 * A phone signing codes can be sent to: E.164 as stored and searched, and a number the messaging
 * gateway takes (its own rule, domain/phone-numbers.ts), so no code is refused later for the number.
 */
const smsPhone = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, { message: 'an international number, e.g. +12025550143', abort: true })
  .refine(isSmsRecipient, `${SMS_RECIPIENT_RULE}: the messaging gateway would not send to it`);

/** National ids: letters, digits, spaces and dashes (normalised away when compared). */
const nationalId = (max: number) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^[A-Za-z0-9 -]{4,${max}}$`), `4-${max} letters, digits, spaces or dashes`);

export const customerAddressSchema = z
  .object({
    line1: z.string().trim().min(1).max(200).optional().meta({ example: '12 Main Street' }),
    line2: z.string().trim().max(200).optional(),
    city: z.string().trim().min(1).max(100).optional().meta({ example: 'Springfield' }),
    /** The state of residence: what Customer/CreditProducts and products' `states` filter by. */
    state: z
      .string()
      .trim()
      .regex(/^[A-Z]{2}$/, 'a two-letter state code')
      .optional()
      .meta({ example: 'CA' }),
    postalCode: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9 -]{3,12}$/)
      .optional()
      .meta({ example: '90210' }),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code')
      .optional()
      .meta({ example: 'US' }),
  })
  .strict();

export const customerDetailsSchema = z
  .object({
    firstName: name.optional().meta({ example: 'Jane' }),
    middleName: name.optional(),
    lastName: name.optional().meta({ example: 'Doe' }),
    birthDate: calendarDate
      .refine((value) => value < new Date().toISOString().slice(0, 10), 'must be in the past')
      .optional()
      .meta({ example: '1990-04-01' }),
    email: z.email().max(254).optional().meta({ example: 'jane.doe@example.com' }),
    phone: smsPhone.optional().meta({ example: '+12025550143' }),
    /** Social security (or national identity) number; kept encrypted at rest. */
    ssn: nationalId(20).optional().meta({ example: '123-45-6789' }),
    /** Kept encrypted at rest. */
    driverLicenseId: nationalId(30).optional().meta({ example: 'D1234567' }),
    address: customerAddressSchema.optional(),
  })
  .strict();

export type CustomerDetails = z.infer<typeof customerDetailsSchema>;

/**
 * The details a customer must have before a loan application leaves Pre-Origination (and before the
 * credit bureau can be asked): who they are (first and last name, birth date, ssn), how to reach them
 * (e-mail, phone) and where they live (address line 1, city, state, postal code, country). Middle
 * name, address line 2 and driver's licence are optional.
 */
export const REQUIRED_CUSTOMER_DETAILS = [
  'firstName',
  'lastName',
  'birthDate',
  'ssn',
  'email',
  'phone',
  'address.line1',
  'address.city',
  'address.state',
  'address.postalCode',
  'address.country',
] as const;

/** The required details that are missing (dotted paths), in REQUIRED_CUSTOMER_DETAILS order. */
export function missingCustomerDetails(details: CustomerDetails): string[] {
  const detailAt = (path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], details);
  return REQUIRED_CUSTOMER_DETAILS.filter((path) => {
    const value = detailAt(path);
    return typeof value !== 'string' || value.trim() === '';
  });
}

export const customerDetailsComplete = (details: CustomerDetails): boolean =>
  missingCustomerDetails(details).length === 0;

/** How a national id is compared (and digested for search): upper case, without spaces or dashes. */
export const normalizeNationalId = (value: string) => value.replace(/[\s-]/g, '').toUpperCase();

/** How a phone filter is compared with stored (E.164) phones: `+` and digits only. */
export const normalizePhone = (value: string) => value.replace(/[^\d+]/g, '');

/** Logins are e-mail-like or plain names; compared case-insensitively (stored lower-case). */
export const LOGIN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{2,99}$/;
export const normalizeLogin = (login: string) => login.trim().toLowerCase();

/**
 * Password rules for lending users: 10 to 128 characters, not the login. Length is what protects a
 * password (NIST SP 800-63B); no composition rules.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;
export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`);

/** A customer's bank account: an IBAN (spaces allowed, stored in electronic format) and an optional BIC. */
export const bankAccountIbanSchema = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? value)
  .refine((value) => isValidIBAN(value), 'not a valid IBAN');

export const bankAccountBicSchema = z.string().refine((value) => isValidBIC(value), 'not a valid BIC');
