import { readFileSync } from 'node:fs';
import { type QuotedRate, quoteRates } from '../../domain/messaging/price-lists.ts';
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
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { priceListOf } from './price-lists.ts';

/**
 * The reference data of the messaging gateway (GET /mccmnc/{country}, /operators/{operatorId},
 * /prefixes/{country}, /rates/): read from the shipped data sets; the rates also from the operator's
 * price lists in the database (application/messaging/price-lists.ts).
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
  /** The country filter, if any. */
  country: string | null;
  /** Which price list priced the answer: the account's own, the default, or none (tariff or nothing). */
  priceList: 'account' | 'default' | null;
  items: QuotedRate[];
}

/**
 * The rates of an account, of one destination country if given (404 for a country the data does not
 * know): each network priced by the account's price list (or the default one), network row first, then
 * country row; without either, the synthetic tariff in sandbox mode and no line at all in production
 * (decision 0056).
 */
export async function readRateCard(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  { accountId, country }: { accountId: string; country?: string | undefined },
): Promise<RateCard> {
  if (country) knownCountry(country);
  const list = await priceListOf(deps, accountId);
  const destinations = country ? rates().filter((rate) => rate.countryIso === country) : rates();
  const rows = country ? (list?.rows ?? []).filter((row) => row.country === country) : (list?.rows ?? []);
  const items = quoteRates(destinations, rows, {
    tariff: deps.config.PLATFORM_MODE === 'sandbox',
    ...(country ? { country } : {}),
    operatorName: (operatorId) => {
      const found = findOperator(operatorId)?.network;
      return found?.operator ?? found?.brand ?? '';
    },
  });
  return { country: country ?? null, priceList: list?.scope ?? null, items };
}

/** The reference data is in the code: these use cases need nothing of UseCaseDeps (the facade's shape kept). */
type NoDeps = Pick<UseCaseDeps, never>;

/** One page (from 1) of the mobile networks of a country, ordered by operator id. */
export function listNetworks(
  _deps: NoDeps,
  { country, page }: { country: string; page: number },
): Page<MobileNetwork> & { country: string } {
  const known = knownCountry(country);
  return { country: known, ...pageOf(networksOfCountry(known), page, MCCMNC_PAGE_SIZE) };
}

/** The network with this MCC/MNC and the others published with the same code; 404 when none is. */
export function getOperator(_deps: NoDeps, { operatorId }: { operatorId: string }): OperatorLookup {
  const found = findOperator(operatorId);
  if (!found) throw Refusal.notFound(`Operator ${operatorId}`);
  return found;
}

/** The dialling plan of a country; 404 when libphonenumber has none. */
export function getDiallingPlan(_deps: NoDeps, { country }: { country: string }): DiallingPlan {
  const plan = diallingPlan(country);
  if (!plan) throw Refusal.notFound(`Country ${country}`);
  return plan;
}
