import { createHash } from 'node:crypto';
import { composeIBAN } from 'ibantools';
import type { AccountDetails, Balance, BankFlowType, Transaction } from '../../domain/openbanking/xs2a.ts';

/**
 * The sandbox banks' fixed data: banks, test users (PSUs) and their accounts, and a deterministic
 * transaction history per account. Documented in docs/openbanking.md ("Sandbox banks").
 *
 * Transactions are a function of (IBAN, index, today): the same account shows the same ids, amounts
 * and counterparties every time; dates are counted back from today (UTC) so that the history is always
 * recent. Index 0 is the newest; the newest `pendingCount` are pending (no booking date yet).
 */

export interface SandboxBankDefinition {
  /** Path segment of the bank on the sandbox server and its key in the directory. */
  code: string;
  name: string;
  country: string;
  bic: string;
  /** What starts the BBAN of its IBANs: four letters (BG, RO) or five digits (AT). */
  bankCode: string;
  bankFlowType: BankFlowType;
  /** Transactions are returned in pages linked with `_links.next` (null: all in one answer). */
  transactionPageSize: number | null;
  /**
   * How the bank starts a consent's or payment's SCA (decision 0061): `implicit` (the answer to the
   * POST carries `scaRedirect` or the decoupled PSU message at once) or `explicit` (the answer carries
   * `startAuthorisation` / `startAuthorisationWithPsuIdentification` and the TPP POSTs the
   * authorisation). Default implicit. `oauth2` (decision 0067): the consent's answer carries `scaOAuth`,
   * the bank's OAuth2 authorisation server (oauth2-server.ts); the reads then need its bearer token.
   */
  scaStart?: 'implicit' | 'explicit' | 'oauth2';
  /**
   * A cancellation of a payment needs the PSU's SCA of its own: DELETE answers 202 with
   * `startAuthorisation` (POST …/cancellation-authorisations) instead of 204. Default false.
   */
  cancellationSca?: boolean;
}

export interface SandboxAccountDefinition {
  /** The account-number part that makes the IBAN unique within the bank. */
  number: string;
  currency: string;
  name: string;
  product: string;
  transactionCount: number;
  /** Days the history spans back from today. */
  historyDays: number;
  pendingCount: number;
}

export interface SandboxUserDefinition {
  psuId: string;
  password: string;
  ownerName: string;
  accounts: SandboxAccountDefinition[];
}

export const SANDBOX_BANKS: SandboxBankDefinition[] = [
  {
    code: 'bank-a',
    name: 'Sandbox Bank A',
    country: 'BG',
    bic: 'SBXABGSF',
    bankCode: 'SBXA',
    bankFlowType: 'redirect',
    transactionPageSize: null,
  },
  {
    code: 'bank-b',
    name: 'Sandbox Bank B',
    country: 'BG',
    bic: 'SBXBBGSF',
    bankCode: 'SBXB',
    bankFlowType: 'redirect',
    transactionPageSize: 50,
  },
  {
    code: 'bank-c',
    name: 'Sandbox Bank C',
    country: 'RO',
    bic: 'SBXCROBU',
    bankCode: 'SBXC',
    bankFlowType: 'redirect',
    transactionPageSize: null,
  },
  // The SCA approaches as other banks run them (decision 0061): each starts its authorisation explicitly.
  {
    code: 'bank-d',
    name: 'Sandbox Bank D',
    country: 'AT',
    bic: 'SBXDATWW',
    bankCode: '19040',
    bankFlowType: 'decoupled',
    transactionPageSize: null,
    scaStart: 'explicit',
  },
  {
    code: 'bank-e',
    name: 'Sandbox Bank E',
    country: 'AT',
    bic: 'SBXEATWW',
    bankCode: '19042',
    bankFlowType: 'embedded',
    transactionPageSize: null,
    scaStart: 'explicit',
  },
  {
    code: 'bank-r',
    name: 'Sandbox Bank R',
    country: 'AT',
    bic: 'SBXRATWW',
    bankCode: '19041',
    bankFlowType: 'redirect',
    transactionPageSize: null,
    scaStart: 'explicit',
    cancellationSca: true,
  },
  // OAuth2 as SCA approach (decision 0067): authorization code with PKCE, bearer token on the reads.
  {
    code: 'bank-o',
    name: 'Sandbox Bank O',
    country: 'AT',
    bic: 'SBXOATWW',
    bankCode: '19043',
    bankFlowType: 'redirect',
    transactionPageSize: null,
    scaStart: 'oauth2',
  },
];

const account = (
  number: string,
  currency: string,
  name: string,
  transactionCount: number,
  historyDays: number,
  pendingCount = 2,
): SandboxAccountDefinition => ({
  number,
  currency,
  name,
  product: name.includes('Savings') ? 'Savings account' : 'Current account',
  transactionCount,
  historyDays,
  pendingCount,
});

/** Test users per bank code. Passwords are `sandbox-<psuId>`. */
export const SANDBOX_USERS: Record<string, SandboxUserDefinition[]> = {
  'bank-a': [
    {
      psuId: 'alice',
      password: 'sandbox-alice',
      ownerName: 'Alice Ivanova',
      accounts: [
        account('00000001', 'BGN', 'Alice current account', 40, 90),
        account('00000002', 'EUR', 'Alice Savings', 10, 90, 0),
      ],
    },
    {
      psuId: 'bob',
      password: 'sandbox-bob',
      ownerName: 'Bob Petrov',
      accounts: [account('00000003', 'BGN', 'Bob current account', 25, 60)],
    },
    {
      psuId: 'bench',
      password: 'sandbox-bench',
      ownerName: 'Bench Mark',
      accounts: [account('00010000', 'BGN', 'Benchmark account', 10_000, 730, 0)],
    },
  ],
  'bank-b': [
    {
      psuId: 'carol',
      password: 'sandbox-carol',
      ownerName: 'Carol Georgieva',
      accounts: [account('00000001', 'BGN', 'Carol current account', 120, 90)],
    },
    {
      psuId: 'bench',
      password: 'sandbox-bench',
      ownerName: 'Bench Mark',
      accounts: [account('00010000', 'BGN', 'Benchmark account', 10_000, 730, 0)],
    },
  ],
  'bank-c': [
    {
      psuId: 'dan',
      password: 'sandbox-dan',
      ownerName: 'Dan Popescu',
      accounts: [account('0000000000000001', 'RON', 'Dan current account', 30, 90)],
    },
  ],
  'bank-d': [
    {
      psuId: 'dora',
      password: 'sandbox-dora',
      ownerName: 'Dora Huber',
      accounts: [account('00000000001', 'EUR', 'Dora current account', 20, 60)],
    },
  ],
  'bank-e': [
    {
      psuId: 'emma',
      password: 'sandbox-emma',
      ownerName: 'Emma Wagner',
      accounts: [account('00000000001', 'EUR', 'Emma current account', 20, 60)],
    },
  ],
  'bank-r': [
    {
      psuId: 'rita',
      password: 'sandbox-rita',
      ownerName: 'Rita Gruber',
      accounts: [account('00000000001', 'EUR', 'Rita current account', 20, 60)],
    },
  ],
  'bank-o': [
    {
      psuId: 'olga',
      password: 'sandbox-olga',
      ownerName: 'Olga Bauer',
      accounts: [account('00000000001', 'EUR', 'Olga current account', 20, 60)],
    },
  ],
};

const digest = (...parts: (string | number)[]) => createHash('sha256').update(parts.join(':')).digest('hex');

/** A valid IBAN of the bank (check digits by ibantools). */
export function ibanOf(bank: SandboxBankDefinition, accountNumber: string): string {
  // BG BBAN: 4 letters bank, 4 digits branch, 2 digits type, 8 alphanumerics; RO: 4 letters + 16;
  // AT: 5 digits bank + 11 digits.
  const bban =
    bank.country === 'BG'
      ? `${bank.bankCode}966110${accountNumber.padStart(8, '0').slice(-8)}`
      : bank.country === 'AT'
        ? `${bank.bankCode}${accountNumber.padStart(11, '0').slice(-11)}`
        : `${bank.bankCode}${accountNumber.padStart(16, '0').slice(-16)}`;
  const iban = composeIBAN({ countryCode: bank.country, bban });
  if (!iban) throw new Error(`cannot compose an IBAN for ${bank.code} ${accountNumber}`);
  return iban;
}

/** The opaque XS2A `resourceId` of an account. */
export const resourceIdOf = (iban: string) => `acc-${digest('account', iban).slice(0, 20)}`;

const COUNTERPARTIES = [
  'Lidl Bulgaria',
  'Sofia Water',
  'Vivacom',
  'Shell Station 12',
  'Kaufland',
  'Bookshop Helikon',
  'City Pharmacy',
  'Electricity Supply Co',
  'Cinema City',
  'Coffee Corner',
];
const PAYERS = ['Acme Payroll Ltd', 'Maria Dimitrova', 'Tax Refund Office', 'Ivan Kolev'];

export interface GeneratedTransaction extends Transaction {
  /** Cents, signed. */
  cents: number;
  booked: boolean;
}

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

export function todayUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

export const formatCents = (cents: number) => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/** One transaction of the account's history; index 0 is the newest. */
export function transactionAt(
  iban: string,
  currency: string,
  definition: Pick<SandboxAccountDefinition, 'transactionCount' | 'historyDays' | 'pendingCount'>,
  index: number,
  today: Date,
): GeneratedTransaction {
  const hash = digest('tx', iban, index);
  const random = Number.parseInt(hash.slice(0, 8), 16);
  const credit = index % 5 === 3;
  const cents = credit ? 50_000 + (random % 250_000) : -(100 + (random % 25_000));
  const booked = index >= definition.pendingCount;
  const daysBack = Math.floor((index * definition.historyDays) / Math.max(1, definition.transactionCount));
  const date = isoDate(addDays(today, -daysBack));
  const counterparty = credit
    ? PAYERS[random % PAYERS.length]!
    : COUNTERPARTIES[random % COUNTERPARTIES.length]!;
  const counterpartyIban = composeIBAN({
    countryCode: 'BG',
    bban: `CPTY966110${hash.slice(8, 16).replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10))}`,
  })!;
  const amount = { currency, amount: formatCents(cents) };
  return {
    transactionId: `tx-${hash.slice(16, 36)}`,
    entryReference: `${String(definition.transactionCount - index).padStart(6, '0')}`,
    ...(booked ? { bookingDate: date } : {}),
    valueDate: date,
    transactionAmount: amount,
    ...(credit
      ? { debtorName: counterparty, debtorAccount: { iban: counterpartyIban } }
      : { creditorName: counterparty, creditorAccount: { iban: counterpartyIban } }),
    remittanceInformationUnstructured: credit
      ? `Transfer ${hash.slice(36, 42).toUpperCase()}`
      : `Card payment ${hash.slice(36, 42).toUpperCase()}`,
    bankTransactionCode: credit ? 'PMNT-RCDT-ESCT' : 'PMNT-CCRD-POSD',
    cents,
    booked,
  };
}

/** A sandbox account with everything derived from its definition. */
export interface SandboxAccount {
  bankCode: string;
  psuId: string;
  iban: string;
  resourceId: string;
  definition: SandboxAccountDefinition;
  ownerName: string;
  bic: string;
  /** Transactions booked through the sandbox control (newest first), on top of the generated history. */
  added: GeneratedTransaction[];
}

export function accountDetailsOf(account: SandboxAccount): AccountDetails {
  return {
    resourceId: account.resourceId,
    iban: account.iban,
    currency: account.definition.currency,
    name: account.definition.name,
    product: account.definition.product,
    cashAccountType: account.definition.product === 'Savings account' ? 'SVGS' : 'CACC',
    status: 'enabled',
    bic: account.bic,
    ownerName: account.ownerName,
  };
}

/** All transactions, newest first. Cached per account and day: 10,000 are generated once a day. */
const historyCache = new Map<string, GeneratedTransaction[]>();

export function historyOf(account: SandboxAccount, now = new Date()): GeneratedTransaction[] {
  const today = todayUtc(now);
  const key = `${account.iban}:${isoDate(today)}:${account.definition.transactionCount}`;
  let history = historyCache.get(key);
  if (!history) {
    history = Array.from({ length: account.definition.transactionCount }, (_, index) =>
      transactionAt(account.iban, account.definition.currency, account.definition, index, today),
    );
    for (const cached of historyCache.keys())
      if (cached.startsWith(`${account.iban}:`)) historyCache.delete(cached);
    historyCache.set(key, history);
  }
  return account.added.length > 0 ? [...account.added, ...history] : history;
}

/** A transaction booked today through the sandbox control; its id is new and unique. */
export function bookedTransaction(
  account: SandboxAccount,
  entry: { amount: string; counterpartyName: string; remittanceInformation: string },
  now = new Date(),
): GeneratedTransaction {
  const cents = Math.round(Number(entry.amount) * 100);
  const date = isoDate(now);
  const sequence = account.added.length + 1;
  const counterparty = { iban: composeIBAN({ countryCode: 'BG', bban: 'CPTY96611000000000' })! };
  return {
    transactionId: `tx-${digest('added', account.iban, sequence, now.getTime()).slice(0, 20)}`,
    entryReference: `S${String(sequence).padStart(5, '0')}`,
    bookingDate: date,
    valueDate: date,
    transactionAmount: { currency: account.definition.currency, amount: formatCents(cents) },
    ...(cents >= 0
      ? { debtorName: entry.counterpartyName, debtorAccount: counterparty }
      : { creditorName: entry.counterpartyName, creditorAccount: counterparty }),
    remittanceInformationUnstructured: entry.remittanceInformation,
    bankTransactionCode: cents >= 0 ? 'PMNT-RCDT-ESCT' : 'PMNT-ICDT-ESCT',
    cents,
    booked: true,
  };
}

/**
 * Balances consistent with the history: the opening balance keeps the account positive; closingBooked
 * sums the booked transactions, expected and interimAvailable add the pending ones.
 */
export function balancesOf(account: SandboxAccount, now = new Date()): Balance[] {
  const history = historyOf(account, now);
  let booked = 0;
  let pending = 0;
  let lowest = 0;
  // Oldest first, to find how low a running balance would go.
  for (let index = history.length - 1; index >= 0; index--) {
    const transaction = history[index]!;
    if (transaction.booked) booked += transaction.cents;
    else pending += transaction.cents;
    lowest = Math.min(lowest, booked + pending);
  }
  const opening = 500_000 - lowest;
  const currency = account.definition.currency;
  const referenceDate = isoDate(todayUtc(now));
  const amount = (cents: number) => ({ currency, amount: formatCents(cents) });
  return [
    { balanceType: 'closingBooked', balanceAmount: amount(opening + booked), referenceDate },
    { balanceType: 'expected', balanceAmount: amount(opening + booked + pending), referenceDate },
    { balanceType: 'interimAvailable', balanceAmount: amount(opening + booked + pending), referenceDate },
  ];
}

export { isoDate };
