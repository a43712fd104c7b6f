import examples from 'libphonenumber-js/examples.mobile.json';
import {
  type CountryCode,
  getCountryCallingCode,
  getExampleNumber,
  isSupportedCountry,
  Metadata,
} from 'libphonenumber-js/max';
import { all as allMobileNetworks } from 'mcc-mnc-list';

/**
 * Reference data of the messaging gateway: mobile networks (MCC/MNC), dialling plans and the rate card.
 * Networks come from the `mcc-mnc-list` package, dialling plans from libphonenumber's metadata, rates
 * from datasets/messaging-rates.csv (see datasets/README.md). Pure: the caller reads the rate file.
 */

/** A network as the `mcc-mnc-list` package publishes it (its typings omit that most fields may be null). */
interface PublishedNetwork {
  type: string;
  countryName: string | null;
  countryCode: string | null;
  mcc: string;
  mnc: string;
  brand: string | null;
  operator: string | null;
  status: string;
}

export interface MobileNetwork {
  /** MCC + MNC, the id used in HLR results and operator look-ups. */
  operatorId: string;
  mcc: string;
  mnc: string;
  brand: string | null;
  operator: string | null;
  /** As published: Operational, Not operational, Reserved, Planned, ... */
  status: string;
  /** ISO 3166-1 alpha-2 of the (first) country served; ISO 3166-2 for a territory without one (GE-AB). */
  countryIso: string | null;
  /** Every country the network serves (several for e.g. the French Antilles networks). */
  countries: string[];
  countryName: string | null;
}

export const MCCMNC_PAGE_SIZE = 50;

let networks: readonly MobileNetwork[] | undefined;

/**
 * All networks with a standard MCC (3 digits) and MNC (2-3 digits), ordered by operator id.
 * The package also lists a few 5-digit French MNCs of private networks; they are left out because no
 * SIM or HLR reports them as an MCC/MNC pair.
 */
export function mobileNetworks(): readonly MobileNetwork[] {
  networks ??= (allMobileNetworks() as readonly PublishedNetwork[])
    .filter((network) => /^\d{3}$/.test(network.mcc) && /^\d{2,3}$/.test(network.mnc))
    .map((network) => {
      const countries = network.countryCode ? network.countryCode.split('/') : [];
      return {
        operatorId: network.mcc + network.mnc,
        mcc: network.mcc,
        mnc: network.mnc,
        brand: network.brand,
        operator: network.operator,
        status: network.status,
        countryIso: countries[0] ?? null,
        countries,
        countryName: network.countryName,
      };
    })
    .sort((a, b) => a.operatorId.localeCompare(b.operatorId));
  return networks;
}

/** A country we have any reference data for: a numbering plan or a mobile network. */
export function isKnownCountry(countryIso: string): boolean {
  const iso = countryIso.toUpperCase();
  return isSupportedCountry(iso) || mobileNetworks().some((network) => network.countries.includes(iso));
}

export function networksOfCountry(countryIso: string): MobileNetwork[] {
  const iso = countryIso.toUpperCase();
  return mobileNetworks().filter((network) => network.countries.includes(iso));
}

export interface Page<T> {
  page: number;
  pageSize: number;
  total: number;
  items: T[];
}

/** One 1-based page; a page past the end is empty rather than an error, so a client can stop on it. */
export function pageOf<T>(items: readonly T[], page: number, pageSize: number): Page<T> {
  const start = (page - 1) * pageSize;
  return { page, pageSize, total: items.length, items: items.slice(start, start + pageSize) };
}

export interface OperatorLookup {
  network: MobileNetwork;
  /** Other published networks with the same MCC/MNC (Crown dependencies share UK codes, for example). */
  otherListings: MobileNetwork[];
}

/** The network in use for an operator id: the first operational listing, else the first one. */
export function findOperator(operatorId: string): OperatorLookup | undefined {
  const listings = mobileNetworks().filter((network) => network.operatorId === operatorId);
  const network = listings.find((listing) => listing.status === 'Operational') ?? listings[0];
  if (!network) return undefined;
  return { network, otherListings: listings.filter((listing) => listing !== network) };
}

export interface DiallingPlan {
  country: string;
  /** With the plus sign, e.g. +359. */
  callingCode: string;
  /** The international (IDD) prefix to dial, e.g. 00; for countries with several, the preferred one. */
  internationalPrefix: string;
  /** libphonenumber's pattern of every IDD prefix the country accepts. */
  internationalPrefixPattern: string;
  /** Trunk prefix dialled before national numbers, e.g. 0; null where there is none. */
  nationalPrefix: string | null;
  /** An example mobile number in E.164; null where the metadata has none. */
  mobileNumberExample: string | null;
  /** Pattern of a mobile national significant number (without calling code or trunk prefix). */
  mobileNumberPattern: string | null;
  /** Possible lengths of a mobile national significant number. */
  mobileNumberLengths: number[];
}

/** The parts of libphonenumber's numbering plan that its typings leave out (present at run time). */
interface NumberingPlanDetails {
  IDDPrefix(): string;
  defaultIDDPrefix(): string | undefined;
  nationalPrefix(): string | undefined;
  type(type: 'MOBILE'): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
}

export function diallingPlan(countryIso: string): DiallingPlan | undefined {
  const iso = countryIso.toUpperCase();
  if (!isSupportedCountry(iso)) return undefined;
  const metadata = new Metadata();
  metadata.selectNumberingPlan(iso);
  const plan = metadata.numberingPlan as unknown as NumberingPlanDetails;
  const iddPattern = plan.IDDPrefix();
  // Where the IDD is a pattern (AU: 0011, 0014, ...), the metadata names the one to dial; `~` in it
  // means "wait for a tone", so it is left out of the digits.
  const internationalPrefix = /^\d+$/.test(iddPattern)
    ? iddPattern
    : (plan.defaultIDDPrefix() ?? iddPattern).replaceAll('~', '');
  const mobile = plan.type('MOBILE');
  return {
    country: iso,
    callingCode: `+${getCountryCallingCode(iso)}`,
    internationalPrefix,
    internationalPrefixPattern: iddPattern,
    nationalPrefix: plan.nationalPrefix() ?? null,
    mobileNumberExample: getExampleNumber(iso as CountryCode, examples)?.number ?? null,
    mobileNumberPattern: mobile?.pattern() ?? null,
    mobileNumberLengths: mobile?.possibleLengths() ?? [],
  };
}

/** One line of the rate card: the price of one SMS part and of one chat-app message to a network. */
export interface Rate {
  countryIso: string;
  mcc: string;
  mnc: string;
  operatorId: string;
  operator: string;
  /** EUR with 4 decimals, as a string so that no float rounding reaches a bill. */
  smsPriceEur: string;
  chatappPriceEur: string;
}

export const RATE_COLUMNS = [
  'countryIso',
  'mcc',
  'mnc',
  'operatorId',
  'operator',
  'smsPriceEur',
  'chatappPriceEur',
] as const satisfies readonly (keyof Rate)[];

const PRICE = /^\d+\.\d{4}$/;

/** Formats an amount in 1/10000 EUR as a decimal string ("0.0450"); integers only, no floats. */
export function formatPrice(tenThousandths: number): string {
  if (!Number.isSafeInteger(tenThousandths) || tenThousandths < 0)
    throw new RangeError(`bad price ${tenThousandths}`);
  return `${Math.floor(tenThousandths / 10_000)}.${String(tenThousandths % 10_000).padStart(4, '0')}`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 CSV of `columns` with a header line and CRLF line ends; null is written as an empty field. */
export function csvOf<T>(columns: readonly (keyof T & string)[], records: readonly T[]): string {
  const lines = [
    columns.join(','),
    ...records.map((record) => columns.map((column) => csvField(String(record[column] ?? ''))).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** The rate card as RFC 4180 CSV with a header line and CRLF line ends. */
export function ratesToCsv(rates: readonly Rate[]): string {
  return csvOf(RATE_COLUMNS, rates);
}

/** RFC 4180 records (quoted fields, CRLF or LF line ends); no column checks. */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

/** Parses the rate card, refusing a file that does not have exactly the expected columns and prices. */
export function parseRatesCsv(text: string): Rate[] {
  const [header, ...rows] = parseCsvRecords(text);
  if (header?.join(',') !== RATE_COLUMNS.join(','))
    throw new Error(`rate card header must be ${RATE_COLUMNS.join(',')}`);
  return rows.map((row, index) => {
    const line = index + 2;
    if (row.length !== RATE_COLUMNS.length) throw new Error(`rate card line ${line}: ${row.length} fields`);
    const [countryIso, mcc, mnc, operatorId, operator, smsPriceEur, chatappPriceEur] = row as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!PRICE.test(smsPriceEur) || !PRICE.test(chatappPriceEur))
      throw new Error(`rate card line ${line}: bad price`);
    if (operatorId !== mcc + mnc) throw new Error(`rate card line ${line}: operatorId is not mcc+mnc`);
    return { countryIso, mcc, mnc, operatorId, operator, smsPriceEur, chatappPriceEur };
  });
}
