import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type {
  AccountReference,
  ConsentRequest,
  ConsentStatus,
  MaintenanceNotice,
} from '../../domain/openbanking/xs2a.ts';
import {
  addDays,
  balancesOf,
  ibanOf,
  isoDate,
  resourceIdOf,
  SANDBOX_USERS,
  type SandboxAccount,
  type SandboxAccountDefinition,
  type SandboxBankDefinition,
  todayUtc,
} from './catalogue.ts';
import { type OAuthAuthorisationRequest, SandboxOAuthServer } from './oauth2-tokens.ts';
import { PaymentLedger } from './payment-ledger.ts';
import type { SandboxPayment, TppSigningPolicy } from './pis-records.ts';

/**
 * The state of one sandbox bank (in memory; a restart forgets consents): its PSUs and accounts,
 * consents and their SCA, the per-day read counters behind `frequencyPerDay`, and maintenance notices.
 */

export interface SandboxPsu {
  psuId: string;
  password: string;
  ownerName: string;
  /** Where the bank sends its one-time codes (embedded SCA): a number of the sandbox SMSC. */
  phone: string;
  accounts: SandboxAccount[];
}

/** A PSU's phone number: +35988 and seven digits from the PSU id (never ending 0000/0001, which the sandbox SMSC fails). */
export const phoneOf = (bankCode: string, psuId: string) =>
  `+35988${String(1_000_000 + (createHash('sha256').update(`${bankCode}:${psuId}`).digest().readUInt32BE(0) % 8_000_000)).padStart(7, '0')}`;

/** What the consent grants per account once the PSU approved it. */
export interface ConsentGrant {
  accountIds: Set<string>;
  balances: Set<string>;
  transactions: Set<string>;
  /** `availableAccounts` consents list accounts only. */
  listOnly: boolean;
}

export interface SandboxConsent {
  consentId: string;
  request: ConsentRequest;
  /** The stored state; `expired` is derived from validUntil (see effectiveStatus). */
  status: Exclude<ConsentStatus, 'expired'>;
  validUntil: string;
  redirectUri: string;
  nokRedirectUri: string;
  createdAt: Date;
  lastActionDate: string;
  /** The consent's one authorisation (`GET …/authorisations`). */
  authorisationId: string;
  /** Started with the consent (implicit), or once the TPP POSTed it (a bank with `scaStart: 'explicit'`). */
  authorisationStarted: boolean;
  scaStatus: 'received' | 'started' | 'psuAuthenticated' | 'scaMethodSelected' | 'finalised' | 'failed';
  failedLogins: number;
  psuId?: string;
  /** The PSU-IP-Address the TPP sent with the consent request (tests read what the platform sent). */
  psuIpAddress?: string;
  sessionHash?: Buffer;
  grant?: ConsentGrant;
  /** Decoupled SCA: the PSU (PSU-ID) the bank asks in its app. */
  decoupledPsuId?: string;
  /** The TPP asked for decoupled SCA (explicit start: the PSU-ID comes with the authorisation). */
  decoupled?: boolean;
  /** Embedded SCA (embedded-consents.ts): the one-time code's digest, expiry and wrong attempts. */
  embedded?: boolean;
  otpDigest?: Buffer;
  otpExpiresAt?: number;
  otpAttempts?: number;
  /** The code the bank's app shows (the `push` method), for the sandbox control. */
  appCode?: string;
  /** OAuth2 SCA (oauth2-server.ts): the authorisation request that opened the consent's SCA page. */
  oauth?: OAuthAuthorisationRequest;
}

export const MAX_FAILED_LOGINS = 5;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Every Sunday 01:00–03:00 UTC: the window Bank C announces by default (the current one or the next). */
export function weeklyMaintenanceWindow(now: Date): MaintenanceNotice {
  const today = todayUtc(now);
  const daysToSunday = (7 - today.getUTCDay()) % 7;
  let start = new Date(addDays(today, daysToSunday).getTime() + 3_600_000);
  if (start.getTime() + 2 * 3_600_000 <= now.getTime()) start = addDays(start, 7);
  const end = new Date(start.getTime() + 2 * 3_600_000);
  return {
    id: `weekly-${isoDate(start)}`,
    startsAt: start.toISOString(),
    endsAt: end.toISOString(),
    message:
      'Planned maintenance of online banking every Sunday 01:00–03:00 UTC; account information is unavailable.',
  };
}

export const PUBLISHED_LINKS = [
  'own-host',
  'second-host',
  'second-host-without-scheme',
  'psd2-path',
] as const;
export type PublishedLinks = (typeof PUBLISHED_LINKS)[number];

export class SandboxBank {
  readonly psus = new Map<string, SandboxPsu>();
  readonly accounts = new Map<string, SandboxAccount>();
  readonly consents = new Map<string, SandboxConsent>();
  /** Payments initiated at the bank (sandbox/openbanking/pis.ts), by paymentId. */
  readonly payments = new Map<string, SandboxPayment>();
  /** OAuth2 SCA (bank O): authorization codes and tokens. */
  readonly oauth = new SandboxOAuthServer();
  /** Whether XS2A requests must be signed by the TPP (signed ones are always verified). */
  tppSigning: TppSigningPolicy = { required: false };
  /** Balances and debits of the bank's accounts: the witness of every payment. */
  readonly ledger = new PaymentLedger((iban) => {
    const account = this.accountByIban(iban);
    if (!account) return null;
    const available = balancesOf(account).find((balance) => balance.balanceType === 'interimAvailable');
    return {
      currency: account.definition.currency,
      balanceMinor: Math.round(Number(available?.balanceAmount.amount ?? '0') * 100),
    };
  });
  /** Reads without the PSU present, per consent, account, endpoint and UTC day. */
  private readonly reads = new Map<string, number>();
  /** null: the bank's default notices; an array: notices set through the sandbox admin endpoint. */
  private maintenanceOverride: MaintenanceNotice[] | null = null;
  /**
   * A transaction list longer than this is answered as a `_links.download` link to the report instead
   * of inline (as banks do for long lists, XS2A 1.3); null: always inline. Set by a sandbox control.
   */
  transactionsDownloadAbove: number | null = null;
  /** Reports behind download links, by token: the account they belong to and the answer's body. */
  readonly transactionDownloads = new Map<string, { resourceId: string; body: unknown }>();
  /**
   * How the bank publishes its `scaOAuth` and `_links.download` links (decision 0082), set by a sandbox
   * control: on its own host (default), on the sandbox's second host (absolute, or without the scheme as
   * in the Berlin Group's examples), or as a `/psd2/v1/…` path (the bank's interface at the root of the
   * second host).
   */
  publishedLinks: PublishedLinks = 'own-host';
  /** The sandbox banks' second host (another loopback port), http://host:port; set at start. */
  secondUrl = '';
  private nextAccountNumber = 50_000_000;

  constructor(
    readonly definition: SandboxBankDefinition,
    /** Whether Bank C announces its weekly window by default (tests turn it off: it is clock-dependent). */
    private readonly weeklyMaintenance = true,
  ) {
    for (const user of SANDBOX_USERS[definition.code] ?? []) {
      this.addPsu(user.psuId, user.password, user.ownerName, user.accounts);
    }
  }

  /**
   * A link of the bank (`path`: `/{code}/…` or `/.well-known/…`) as it publishes it (publishedLinks):
   * relative, or absolute on the host the request reached (`requestUrl`), or on its second host.
   */
  publishedHref(path: string, requestUrl?: string): string {
    const second = new URL(this.secondUrl || 'http://second.invalid');
    if (this.publishedLinks === 'second-host') return `${second.origin}${path}`;
    if (this.publishedLinks === 'second-host-without-scheme') return `${second.host}${path}`;
    const own = `/${this.definition.code}/v1/`;
    if (this.publishedLinks === 'psd2-path' && path.startsWith(own))
      return `/psd2/v1/${path.slice(own.length)}`;
    return requestUrl ? new URL(path, requestUrl).toString() : path;
  }

  addPsu(psuId: string, password: string, ownerName: string, definitions: SandboxAccountDefinition[]) {
    const psu: SandboxPsu = {
      psuId,
      password,
      ownerName,
      phone: phoneOf(this.definition.code, psuId),
      accounts: [],
    };
    for (const definition of definitions) {
      const iban = ibanOf(this.definition, definition.number);
      const account: SandboxAccount = {
        bankCode: this.definition.code,
        psuId,
        iban,
        resourceId: resourceIdOf(iban),
        definition,
        ownerName,
        bic: this.definition.bic,
        added: [],
      };
      psu.accounts.push(account);
      this.accounts.set(account.resourceId, account);
    }
    this.psus.set(psuId, psu);
    return psu;
  }

  accountByIban(iban: string): SandboxAccount | undefined {
    for (const account of this.accounts.values()) if (account.iban === iban) return account;
    return undefined;
  }

  /** A new PSU with generated accounts (sandbox admin endpoint; benchmarks seed big histories this way). */
  seedPsu(input: {
    psuId?: string;
    ownerName?: string;
    accounts: { currency: string; transactions: number; historyDays: number }[];
  }): SandboxPsu {
    const psuId = input.psuId ?? `psu-${randomBytes(4).toString('hex')}`;
    const definitions = input.accounts.map((entry, index) => ({
      number: String(this.nextAccountNumber++),
      currency: entry.currency,
      name: `Seeded account ${index + 1}`,
      product: 'Current account',
      transactionCount: entry.transactions,
      historyDays: entry.historyDays,
      pendingCount: entry.transactions > 0 ? 1 : 0,
    }));
    return this.addPsu(psuId, `sandbox-${psuId}`, input.ownerName ?? 'Seeded User', definitions);
  }

  createConsent(
    request: ConsentRequest,
    redirectUri: string,
    nokRedirectUri: string,
    now = new Date(),
  ): SandboxConsent {
    const consent: SandboxConsent = {
      consentId: randomUUID(),
      request,
      status: 'received',
      validUntil: request.validUntil,
      redirectUri,
      nokRedirectUri,
      createdAt: now,
      lastActionDate: isoDate(now),
      authorisationId: randomUUID(),
      // Explicit: the TPP POSTs the authorisation; OAuth2: the PSU's browser opens the authorisation request.
      authorisationStarted: (this.definition.scaStart ?? 'implicit') === 'implicit',
      scaStatus: 'received',
      failedLogins: 0,
    };
    this.consents.set(consent.consentId, consent);
    return consent;
  }

  /** The state a TPP sees: a received or valid consent past its validUntil day is expired. */
  effectiveStatus(consent: SandboxConsent, now = new Date()): ConsentStatus {
    if ((consent.status === 'valid' || consent.status === 'received') && consent.validUntil < isoDate(now))
      return 'expired';
    return consent.status;
  }

  /** The PSU's accounts the consent asks for; empty when it names IBANs the PSU does not hold. */
  grantFor(consent: SandboxConsent, psu: SandboxPsu): ConsentGrant | undefined {
    const { access } = consent.request;
    const all = new Set(psu.accounts.map((account) => account.resourceId));
    if (access.allPsd2) return { accountIds: all, balances: all, transactions: all, listOnly: false };
    if (access.availableAccounts)
      return { accountIds: all, balances: new Set(), transactions: new Set(), listOnly: true };
    const lists = [access.accounts ?? [], access.balances ?? [], access.transactions ?? []];
    // Every list empty: a bank-offered consent; the PSU shares all their accounts.
    if (lists.every((list) => list.length === 0))
      return { accountIds: all, balances: all, transactions: all, listOnly: false };
    const matching = (references: AccountReference[]) =>
      new Set(
        psu.accounts
          .filter((account) =>
            references.some(
              (reference) =>
                reference.iban === account.iban &&
                (!reference.currency || reference.currency === account.definition.currency),
            ),
          )
          .map((account) => account.resourceId),
      );
    const balances = matching(access.balances ?? []);
    const transactions = matching(access.transactions ?? []);
    const accountIds = new Set([...matching(access.accounts ?? []), ...balances, ...transactions]);
    if (accountIds.size === 0) return undefined;
    return { accountIds, balances, transactions, listOnly: false };
  }

  /** Checks the PSU's credentials; a new SCA session token on success. */
  login(
    consent: SandboxConsent,
    psuId: string,
    password: string,
  ): { session: string } | 'wrong' | 'no-accounts' {
    const psu = this.psus.get(psuId);
    const expected = sha256(psu?.password ?? randomBytes(16).toString('hex'));
    if (!psu || !timingSafeEqual(expected, sha256(password))) {
      consent.failedLogins += 1;
      return 'wrong';
    }
    const grant = this.grantFor(consent, psu);
    if (!grant) return 'no-accounts';
    const session = randomBytes(24).toString('hex');
    consent.psuId = psu.psuId;
    consent.grant = grant;
    consent.sessionHash = sha256(session);
    consent.scaStatus = 'psuAuthenticated';
    return { session };
  }

  sessionMatches(consent: SandboxConsent, session: string): boolean {
    return consent.sessionHash !== undefined && timingSafeEqual(consent.sessionHash, sha256(session));
  }

  decide(consent: SandboxConsent, approved: boolean, now = new Date()): void {
    consent.status = approved ? 'valid' : 'rejected';
    consent.scaStatus = approved ? 'finalised' : 'failed';
    consent.sessionHash = undefined;
    consent.lastActionDate = isoDate(now);
    if (!approved) consent.grant = undefined;
  }

  /**
   * Counts one read without the PSU present; false once `frequencyPerDay` reads of this account and
   * endpoint were made today (UTC).
   */
  countUnattendedRead(consent: SandboxConsent, resource: string, now = new Date()): boolean {
    const key = `${consent.consentId}|${resource}|${isoDate(now)}`;
    const used = this.reads.get(key) ?? 0;
    if (used >= consent.request.frequencyPerDay) return false;
    this.reads.set(key, used + 1);
    return true;
  }

  maintenanceNotices(now = new Date()): MaintenanceNotice[] {
    const notices =
      this.maintenanceOverride ??
      (this.weeklyMaintenance && this.definition.code === 'bank-c' ? [weeklyMaintenanceWindow(now)] : []);
    return notices.filter((notice) => new Date(notice.endsAt).getTime() > now.getTime());
  }

  activeMaintenance(now = new Date()): MaintenanceNotice | undefined {
    return this.maintenanceNotices(now).find(
      (notice) => new Date(notice.startsAt).getTime() <= now.getTime(),
    );
  }

  setMaintenance(notices: MaintenanceNotice[] | null): void {
    this.maintenanceOverride = notices;
  }
}
