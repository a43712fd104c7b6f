import {
  type CountryCode,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
} from 'libphonenumber-js/max';
import { type NumberType, normaliseNumber } from '../phone-numbers.ts';

/**
 * Phone-number rules of the messaging gateway. Whether a number is valid is the shared rule of
 * domain/phone-numbers.ts (lending checks its customers' phones with the same one).
 */

/** An alphanumeric sender ID: 1-11 characters of letters, digits, space and a few symbols (GSM 03.38 safe). */
export function isAlphanumericSender(value: string): boolean {
  return /^(?=.*[A-Za-z])[A-Za-z0-9 .\-_&]{1,11}$/.test(value);
}

/** Why a number could not be corrected; the `Error` of the number correction result. */
export type NumberCorrectionError =
  | 'not_a_number'
  | 'country_required'
  | 'invalid_country_code'
  | 'too_short'
  | 'too_long'
  | 'invalid_length'
  | 'invalid_number';

export interface NumberCorrection {
  error: NumberCorrectionError | null;
  numberType: NumberType;
  mobile: boolean;
  /** Country the number belongs to; known for an invalid number when its calling code is. */
  countryIso: string | null;
  /** Only for a valid number: an invalid one must not be sent to. */
  e164: string | null;
}

/**
 * Corrects a number written in any common form (spaces, dashes, brackets, 00 or the country's own
 * international prefix, national form with a trunk prefix when `country` is given) to E.164, and says
 * why when that is not possible. An invalid number is a result, not an exception.
 */
export function correctNumber(input: string, country?: CountryCode): NumberCorrection {
  const trimmed = input.trim();
  // Without a country, 00 is the international prefix of most of the world; with one, libphonenumber
  // strips that country's own prefix (011 for US, 810 for RU).
  const text = country ? trimmed : trimmed.replace(/^00/, '+');
  const failed = (error: NumberCorrectionError, countryIso: string | null = null): NumberCorrection => ({
    error,
    numberType: 'unknown',
    mobile: false,
    countryIso,
    e164: null,
  });
  if (!/\d/.test(text)) return failed('not_a_number');
  const lengthProblem = validatePhoneNumberLength(text, country);
  const parsed = parsePhoneNumberFromString(text, country);
  const detectedCountry = parsed?.country ?? country ?? null;
  switch (lengthProblem) {
    case 'NOT_A_NUMBER':
      return failed('not_a_number');
    case 'INVALID_COUNTRY':
      return failed(text.startsWith('+') ? 'invalid_country_code' : 'country_required');
    case 'TOO_SHORT':
      return failed('too_short', detectedCountry);
    case 'TOO_LONG':
      return failed('too_long', detectedCountry);
    case 'INVALID_LENGTH':
      return failed('invalid_length', detectedCountry);
  }
  if (!parsed?.isValid()) return failed('invalid_number', detectedCountry);
  const valid = normaliseNumber(parsed.number);
  if (!valid) return failed('invalid_number', detectedCountry);
  return {
    error: null,
    numberType: valid.numberType,
    mobile: valid.mobile,
    countryIso: valid.countryIso ?? null,
    e164: valid.e164,
  };
}
