import { csvOf, isKnownCountry, parseCsvRecords, type Rate } from './reference-data.ts';

/**
 * The operator's price list of SMS parts (decision 0056): CSV rows `country,mcc,mnc,price,currency`, one
 * per destination network, or per country when `mnc` is empty. Uploaded per messaging account, with a
 * default list for accounts without their own. Pure: parsing, validation and the choice of the row
 * that prices a network.
 */

export const PRICE_LIST_COLUMNS = ['country', 'mcc', 'mnc', 'price', 'currency'] as const;
type PriceListColumn = (typeof PRICE_LIST_COLUMNS)[number];

export interface PriceListRow {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  mcc: string;
  /** Empty: the row prices every network of the country without a row of its own. */
  mnc: string;
  /** The price of one SMS part, a decimal string with exactly 4 decimals ("0.0450"). */
  price: string;
  /** ISO 4217, upper case. */
  currency: string;
}

/** A refused row: the CSV line (the header is line 1) and the column. */
export interface PriceListProblem {
  line: number;
  column: PriceListColumn | 'row';
  message: string;
}

export type PriceListParse = { ok: true; rows: PriceListRow[] } | { ok: false; problems: PriceListProblem[] };

const MCC = /^\d{3}$/;
const MNC = /^\d{2,3}$/;
const PRICE = /^(\d{1,9})(?:\.(\d{1,4}))?$/;
let currencies: ReadonlySet<string> | undefined;
const isCurrency = (code: string) => {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
};

/** "0.05" → "0.0500": the canonical 4-decimal form. */
const normalisedPrice = (whole: string, decimals = '') =>
  `${BigInt(whole).toString()}.${decimals.padEnd(4, '0')}`;

/**
 * Reads an uploaded price list: the header line names the five columns (any order, case and spaces
 * ignored); every other non-blank line is a row. Every problem of every row is reported; a list with
 * any problem yields no rows at all.
 */
export function parsePriceList(text: string): PriceListParse {
  const [header = [], ...records] = parseCsvRecords(text.replace(/^\uFEFF/, ''));
  const names = header.map((name) => name.trim().toLowerCase());
  const missing = PRICE_LIST_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) {
    return {
      ok: false,
      problems: missing.map((column) => ({
        line: 1,
        column,
        message: `the header line must name the columns ${PRICE_LIST_COLUMNS.join(',')}`,
      })),
    };
  }
  const index = Object.fromEntries(
    PRICE_LIST_COLUMNS.map((column) => [column, names.indexOf(column)]),
  ) as Record<PriceListColumn, number>;
  const problems: PriceListProblem[] = [];
  const rows: PriceListRow[] = [];
  const seen = new Map<string, number>();
  records.forEach((record, at) => {
    const line = at + 2;
    if (record.every((field) => field.trim() === '')) return;
    const problem = (column: PriceListProblem['column'], message: string) =>
      problems.push({ line, column, message });
    if (record.length !== header.length) {
      problem('row', `${record.length} fields where the header has ${header.length}`);
      return;
    }
    const value = (column: PriceListColumn) => (record[index[column]] ?? '').trim();
    const country = value('country').toUpperCase();
    const mcc = value('mcc');
    const mnc = value('mnc');
    const currency = value('currency').toUpperCase();
    const price = PRICE.exec(value('price'));
    if (!/^[A-Z]{2}$/.test(country) || !isKnownCountry(country))
      problem('country', 'an ISO 3166-1 alpha-2 country code the platform knows (BG)');
    if (!MCC.test(mcc)) problem('mcc', 'a mobile country code of 3 digits (284)');
    if (mnc !== '' && !MNC.test(mnc))
      problem('mnc', 'a mobile network code of 2 or 3 digits, or empty for the whole country');
    if (!price) problem('price', 'a non-negative decimal with at most 4 decimals (0.0450)');
    if (!/^[A-Z]{3}$/.test(currency) || !isCurrency(currency))
      problem('currency', 'an ISO 4217 currency code (EUR)');
    if (problems.some((found) => found.line === line) || !price) return;
    // One row per network, and one country row per country: which of two would price is not guessed.
    const key = mnc === '' ? country : `${country}:${mcc}${mnc}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problem(
        mnc === '' ? 'country' : 'mnc',
        `line ${earlier} already prices ${mnc === '' ? country : mcc + mnc}`,
      );
      return;
    }
    seen.set(key, line);
    rows.push({ country, mcc, mnc, price: normalisedPrice(price[1] ?? '0', price[2]), currency });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rows };
}

/** The price list as CSV with its header line (CRLF line ends), as `parsePriceList` reads it. */
export function priceListToCsv(rows: readonly PriceListRow[]): string {
  return csvOf(PRICE_LIST_COLUMNS, rows);
}

/** Where a quoted price came from. */
export type PriceSource = 'network' | 'country' | 'tariff';

/** A line of the rates answer: the price of one SMS part to a destination network. */
export interface QuotedRate {
  countryIso: string;
  mcc: string;
  mnc: string;
  operatorId: string;
  operator: string;
  smsPrice: string;
  currency: string;
  /** Only the synthetic tariff prices chat-app messages; null with a price list. */
  chatappPrice: string | null;
  source: PriceSource;
  /** Deprecated, 0.1.0's fields: the prices when `currency` is EUR, else null. */
  smsPriceEur: string | null;
  chatappPriceEur: string | null;
}

export const QUOTED_RATE_COLUMNS = [
  'countryIso',
  'mcc',
  'mnc',
  'operatorId',
  'operator',
  'smsPrice',
  'currency',
  'chatappPrice',
  'source',
  // 0.1.0's columns, kept at the end for readers by header name.
  'smsPriceEur',
  'chatappPriceEur',
] as const satisfies readonly (keyof QuotedRate)[];

/** A quoted line with 0.1.0's EUR fields filled in where the price is in EUR. */
function withEurFields(rate: Omit<QuotedRate, 'smsPriceEur' | 'chatappPriceEur'>): QuotedRate {
  const eur = rate.currency === 'EUR';
  return {
    ...rate,
    smsPriceEur: eur ? rate.smsPrice : null,
    chatappPriceEur: eur ? rate.chatappPrice : null,
  };
}

type Destination = Pick<Rate, 'countryIso' | 'mcc' | 'mnc' | 'operatorId' | 'operator'>;

/**
 * The rates of the destinations: each network priced by its own row of the list, else by its
 * country's row, else by the synthetic tariff when `tariff` is allowed (sandbox), else left out.
 * Network rows for networks the reference data does not list are quoted too (operator name from
 * `operatorName`, empty when unknown).
 */
export function quoteRates(
  destinations: readonly Rate[],
  list: readonly PriceListRow[],
  options: { tariff: boolean; country?: string; operatorName: (operatorId: string) => string },
): QuotedRate[] {
  const networkRows = new Map(list.filter((row) => row.mnc !== '').map((row) => [row.mcc + row.mnc, row]));
  const countryRows = new Map(list.filter((row) => row.mnc === '').map((row) => [row.country, row]));
  const quoted: QuotedRate[] = [];
  const quote = (destination: Destination, row: PriceListRow, source: PriceSource) =>
    quoted.push(
      withEurFields({
        ...destination,
        smsPrice: row.price,
        currency: row.currency,
        chatappPrice: null,
        source,
      }),
    );
  const listed = new Set<string>();
  for (const rate of destinations) {
    listed.add(rate.operatorId);
    const { smsPriceEur, chatappPriceEur, ...destination } = rate;
    const network = networkRows.get(rate.operatorId);
    const country = countryRows.get(rate.countryIso);
    if (network) quote(destination, network, 'network');
    else if (country) quote(destination, country, 'country');
    else if (options.tariff)
      quoted.push(
        withEurFields({
          ...destination,
          smsPrice: smsPriceEur,
          currency: 'EUR',
          chatappPrice: chatappPriceEur,
          source: 'tariff',
        }),
      );
  }
  for (const row of networkRows.values()) {
    const operatorId = row.mcc + row.mnc;
    if (listed.has(operatorId) || (options.country && row.country !== options.country)) continue;
    quote(
      {
        countryIso: row.country,
        mcc: row.mcc,
        mnc: row.mnc,
        operatorId,
        operator: options.operatorName(operatorId),
      },
      row,
      'network',
    );
  }
  return quoted.sort(
    (a, b) => a.countryIso.localeCompare(b.countryIso) || a.operatorId.localeCompare(b.operatorId),
  );
}
