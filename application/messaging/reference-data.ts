import { readFileSync } from 'node:fs';
import {
  type DiallingPlan,
  diallingPlan,
  findOperator,
  isKnownCountry,
  MCCMNC_PAGE_SIZE,
  type MobileNetwork,
  networksOfCountry,
  type OperatorLookup,
  type Page,
  pageOf,
  parseRatesCsv,
  type Rate,
} from '../../domain/messaging/reference-data.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The reference data of the messaging gateway (GET /mccmnc/{country}, /operators/{operatorId},
 * /prefixes/{country}, /rates/): read from the shipped data sets only, so these use cases need no
 * dependencies.
 */

const RATES_FILE = new URL('../../datasets/messaging-rates.csv', import.meta.url);
let rateCard: Rate[] | undefined;

/** Read once per process; a malformed file fails the first request loudly rather than pricing wrongly. */
function rates(): Rate[] {
  rateCard ??= parseRatesCsv(readFileSync(RATES_FILE, 'utf8'));
  return rateCard;
}

/** The country when the reference data knows it; 404 otherwise. */
function knownCountry(country: string): string {
  if (!isKnownCountry(country)) throw Refusal.notFound(`Country ${country}`);
  return country;
}

export interface RateCard {
  currency: 'EUR';
  /** The country filter, if any. */
  country: string | null;
  items: Rate[];
}

/** The rate card, of one destination country if given (404 for a country the data does not know). */
export function readRateCard(country: string | undefined): RateCard {
  if (!country) return { currency: 'EUR', country: null, items: rates() };
  knownCountry(country);
  return { currency: 'EUR', country, items: rates().filter((rate) => rate.countryIso === country) };
}

/** One page (from 1) of the mobile networks of a country, ordered by operator id. */
export function networksPage(country: string, page: number): Page<MobileNetwork> & { country: string } {
  const known = knownCountry(country);
  return { country: known, ...pageOf(networksOfCountry(known), page, MCCMNC_PAGE_SIZE) };
}

/** The network with this MCC/MNC and the others published with the same code; 404 when none is. */
export function operatorOf(operatorId: string): OperatorLookup {
  const found = findOperator(operatorId);
  if (!found) throw Refusal.notFound(`Operator ${operatorId}`);
  return found;
}

/** The dialling plan of a country; 404 when libphonenumber has none. */
export function diallingPlanOf(country: string): DiallingPlan {
  const plan = diallingPlan(country);
  if (!plan) throw Refusal.notFound(`Country ${country}`);
  return plan;
}
