import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The one rule for a phone number an SMS can be sent to, on libphonenumber's metadata: the messaging
 * gateway checks every recipient with it, and lending checks customers' and investors' phones with it,
 * so lending never keeps a number the gateway would later refuse (issue 37 item 4). Numbers are
 * accepted in international form (+359..., 00359...) or in national form with a country.
 */
export type NumberType = 'mobile' | 'landline' | 'unknown';

export interface NormalisedNumber {
  e164: string;
  countryIso: string | undefined;
  numberType: NumberType;
  mobile: boolean;
}

export function isCountryCode(value: string): value is CountryCode {
  return isSupportedCountry(value.toUpperCase());
}

/** Parses and validates a number; returns undefined when it is not a valid number. */
export function normaliseNumber(input: string, defaultCountry?: string): NormalisedNumber | undefined {
  const trimmed = input.trim().replace(/^00/, '+');
  const country =
    defaultCountry && isCountryCode(defaultCountry)
      ? (defaultCountry.toUpperCase() as CountryCode)
      : undefined;
  const parsed = parsePhoneNumberFromString(trimmed, country);
  if (!parsed?.isValid()) return undefined;
  const type = parsed.getType();
  const numberType: NumberType =
    type === 'MOBILE' || type === 'FIXED_LINE_OR_MOBILE'
      ? 'mobile'
      : type === 'FIXED_LINE'
        ? 'landline'
        : 'unknown';
  return { e164: parsed.number, countryIso: parsed.country, numberType, mobile: numberType === 'mobile' };
}

/** Whether the messaging gateway takes the number as an SMS recipient (its `to`). */
export const isSmsRecipient = (input: string): boolean => normaliseNumber(input) !== undefined;

/** What a refused recipient is told, wherever the rule refuses it. */
export const SMS_RECIPIENT_RULE = 'not a valid phone number in international format';
