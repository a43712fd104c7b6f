import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { networksOfCountry } from './reference-data.ts';
import type { LongMessageMode } from './segments.ts';

/**
 * SMS carriers and routes (decision 0079), pure: which carriers a destination goes to, in order. The
 * carriers and routes are the operator's (tables messaging_carriers and messaging_routes); the carrier
 * of the SMPP_* variables is the implicit carrier `default`, used when no route matches.
 */

/** The implicit carrier of SMPP_URL, SMPP_SYSTEM_ID, SMPP_PASSWORD… */
export const DEFAULT_CARRIER = 'default';

/** A carrier's or route's name: lower-case letters, digits, `-` and `_`, up to 40 characters. */
export const CARRIER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** A destination prefix: the first digits of E.164 numbers (without `+`), country code included. */
export const ROUTE_PREFIX_PATTERN = /^\d{1,15}$/;
/** A network (MCC + MNC, 5-6 digits) or a country's networks (MCC, 3 digits). */
export const ROUTE_MCCMNC_PATTERN = /^\d{3}(\d{2,3})?$/;

/** A carrier as the router uses it (its password open). */
export interface CarrierSettings {
  name: string;
  url: string;
  systemId: string;
  password: string;
  /** submit_sm outstanding at most on its bind, per worker process. */
  window: number;
  /** submit_sm a second at most, per worker process; null: no limit. */
  submitRate: number | null;
  longMessages: LongMessageMode;
  enabled: boolean;
}

export interface Route {
  name: string;
  /** Destinations whose E.164 digits start with this. */
  prefix: string | null;
  /** Destinations on this network (MCC+MNC) or in the country of this MCC. */
  mccMnc: string | null;
  /** Lower first, among the routes that match. */
  priority: number;
  /** Carrier names in failover order. */
  carriers: string[];
  enabled: boolean;
}

/** What is known of a destination: its digits, and its networks' MCC (+MNC) when known. */
export interface Destination {
  digits: string;
  /** MCC+MNC of the number's network when known (an HLR lookup), else undefined. */
  network?: string | undefined;
  /** MCCs of the number's country (from the number data). */
  mccs: readonly string[];
}

/**
 * How closely a route matches a destination, 0 when it does not: a prefix by its length, a known
 * network above any prefix, a country's MCC as a country calling code (above 3 digits, below 4).
 */
function specificity(route: Route, destination: Destination): number {
  if (route.prefix !== null && destination.digits.startsWith(route.prefix)) return route.prefix.length;
  if (route.mccMnc === null) return 0;
  if (route.mccMnc.length > 3) return destination.network === route.mccMnc ? 16 : 0;
  const mcc = destination.network?.slice(0, 3);
  return mcc === route.mccMnc || (!mcc && destination.mccs.includes(route.mccMnc)) ? 3.5 : 0;
}

/**
 * The carriers a destination goes to, in failover order: the carriers of the matching routes, by
 * priority then the closest match (a longer prefix before a shorter, see specificity),
 * each carrier once, leaving out disabled and unknown ones; `default` when no route matches.
 */
export function carriersFor(
  routes: readonly Route[],
  carriers: ReadonlyMap<string, { enabled: boolean }>,
  destination: Destination,
): string[] {
  const matching = routes
    .filter((route) => route.enabled)
    .map((route) => ({ route, closeness: specificity(route, destination) }))
    .filter((match) => match.closeness > 0)
    .sort(
      (a, b) =>
        a.route.priority - b.route.priority ||
        b.closeness - a.closeness ||
        a.route.name.localeCompare(b.route.name),
    );
  if (matching.length === 0) return [DEFAULT_CARRIER];
  const ordered: string[] = [];
  for (const { route } of matching)
    for (const name of route.carriers)
      if (!ordered.includes(name) && (name === DEFAULT_CARRIER || carriers.get(name)?.enabled))
        ordered.push(name);
  return ordered;
}

/** Whether any route needs a number's network (MCC+MNC) to decide: only then is it looked up. */
export function routesNeedNetworks(routes: readonly Route[]): boolean {
  return routes.some((route) => route.enabled && route.mccMnc !== null);
}

/** A destination from the number data: its digits, and the MCCs of its country (libphonenumber's). */
export function destinationOf(to: string): Destination {
  const country = parsePhoneNumberFromString(to)?.country;
  const mccs = country ? [...new Set(networksOfCountry(country).map((network) => network.mcc))] : [];
  return { digits: to.replace(/^\+/, ''), mccs };
}
