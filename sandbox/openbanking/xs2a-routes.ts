import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { isValidIBAN } from 'ibantools';
import { z } from 'zod';
import type { BookingStatus, ConsentRequest } from '../../domain/openbanking/xs2a.ts';
import type { SandboxBank, SandboxConsent } from './bank.ts';
import { accountDetailsOf, balancesOf, historyOf, isoDate, type SandboxAccount } from './catalogue.ts';
import { type EmbeddedConsentOptions, embeddedConsentRoutes } from './embedded-consents.ts';
import { tppError } from './tpp-errors.ts';

/**
 * The XS2A 1.3 endpoints of one sandbox bank, under `/{code}/v1`:
 * consents (create, read, status, delete), accounts, balances, transactions (paged on banks with a
 * page size) and one transaction, plus the ASPSP-specific `GET /v1/maintenance`.
 * Errors are Berlin Group `tppMessages` bodies with the status codes of the specification.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (value: string) => DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

const accountReference = z.object({
  iban: z.string().refine((iban) => isValidIBAN(iban), 'not a valid IBAN'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
});
const allAccounts = z.enum(['allAccounts', 'allAccountsWithOwnerName']);

const consentRequestSchema = z
  .object({
    access: z
      .object({
        accounts: z.array(accountReference).max(50).optional(),
        balances: z.array(accountReference).max(50).optional(),
        transactions: z.array(accountReference).max(50).optional(),
        availableAccounts: allAccounts.optional(),
        allPsd2: allAccounts.optional(),
      })
      .refine(
        (access) =>
          Boolean(access.allPsd2) ||
          Boolean(access.availableAccounts) ||
          access.accounts !== undefined ||
          access.balances !== undefined ||
          access.transactions !== undefined,
        'must name accounts, balances, transactions, availableAccounts or allPsd2',
      ),
    recurringIndicator: z.boolean(),
    validUntil: z.string().refine(isDate, 'must be a date YYYY-MM-DD'),
    frequencyPerDay: z.number().int().min(1).max(100),
    combinedServiceIndicator: z.boolean(),
  })
  .refine((request) => request.recurringIndicator || request.frequencyPerDay === 1, {
    message: 'must be 1 for a one-off consent (recurringIndicator false)',
    path: ['frequencyPerDay'],
  });

const isRedirectUri = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
};

export function registerXs2aRoutes(
  app: Hono,
  bank: SandboxBank,
  publicUrl: () => string,
  embeddedOptions: EmbeddedConsentOptions = {},
): void {
  const base = `/${bank.definition.code}`;
  const v1 = `${base}/v1`;
  const embedded = embeddedConsentRoutes(bank, embeddedOptions);

  // Every XS2A request carries a UUID X-Request-ID, echoed on the answer; every answer carries one (the
  // schema requires the header on errors too), a new one where the request's was missing or malformed.
  app.use(`${v1}/*`, async (c, next) => {
    const requestId = c.req.header('x-request-id');
    if (!requestId || !UUID.test(requestId)) {
      c.header('X-Request-ID', randomUUID());
      return tppError(c, 'FORMAT_ERROR', 'X-Request-ID must be a UUID', 'X-Request-ID');
    }
    c.header('X-Request-ID', requestId);
    if (c.req.path !== `${v1}/maintenance`) {
      const window = bank.activeMaintenance();
      if (window) {
        const seconds = Math.max(1, Math.ceil((Date.parse(window.endsAt) - Date.now()) / 1000));
        c.header('Retry-After', String(seconds));
        // The 1.3 schema's 503 has headers only; the notice itself is at GET /v1/maintenance.
        return c.body(null, 503);
      }
    }
    return next();
  });

  app.get(`${v1}/maintenance`, (c) => c.json({ notices: bank.maintenanceNotices() }, 200));

  /** 201 for a consent whose authorisation the TPP starts itself, with the start link of the approach. */
  const consentAwaitingStart = (c: Context, request: ConsentRequest, approach: 'DECOUPLED' | 'EMBEDDED') => {
    const consent = bank.createConsent(request, '', '');
    consent.psuIpAddress = c.req.header('psu-ip-address');
    if (approach === 'DECOUPLED') consent.decoupled = true;
    else {
      consent.embedded = true;
      consent.authorisationStarted = false;
    }
    const self = `${v1}/consents/${consent.consentId}`;
    const start =
      approach === 'DECOUPLED'
        ? 'startAuthorisationWithPsuIdentification'
        : 'startAuthorisationWithPsuAuthentication';
    c.header('Location', new URL(self, c.req.url).toString());
    c.header('ASPSP-SCA-Approach', approach);
    return c.json(
      {
        consentStatus: 'received',
        consentId: consent.consentId,
        _links: {
          self: { href: self },
          status: { href: `${self}/status` },
          [start]: { href: `${self}/authorisations` },
        },
      },
      201,
    );
  };

  app.post(`${v1}/consents`, async (c) => {
    const body = await c.req.json().catch(() => undefined);
    const parsed = consentRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return tppError(
        c,
        'FORMAT_ERROR',
        `${issue.path.join('.') || 'body'}: ${issue.message}`,
        issue.path.join('.'),
      );
    }
    const request = parsed.data as ConsentRequest;
    if (request.validUntil < isoDate(new Date()))
      return tppError(c, 'FORMAT_ERROR', 'validUntil: must not be in the past', 'validUntil');
    const explicitStart = bank.definition.scaStart === 'explicit';
    if (c.req.header('tpp-decoupled-preferred') === 'true' && explicitStart) {
      // Decoupled, started explicitly: the PSU is named when the TPP starts the authorisation.
      return consentAwaitingStart(c, request, 'DECOUPLED');
    }
    if (
      bank.definition.bankFlowType === 'embedded' &&
      c.req.header('tpp-redirect-preferred') === 'false' &&
      c.req.header('tpp-decoupled-preferred') !== 'true'
    ) {
      // Embedded (embedded-consents.ts): the TPP relays the PSU's credentials and one-time code.
      return consentAwaitingStart(c, request, 'EMBEDDED');
    }
    if (c.req.header('tpp-decoupled-preferred') === 'true') {
      // Decoupled: the PSU named by PSU-ID approves in the bank's app (the sandbox control
      // POST /{code}/sandbox/consents/{id}/decoupled/{approve|deny} stands for the app).
      const psuId = c.req.header('psu-id');
      if (!psuId || !bank.psus.has(psuId))
        return tppError(c, 'PSU_CREDENTIALS_INVALID', 'PSU-ID: not a user of this bank', 'PSU-ID');
      const consent = bank.createConsent(request, '', '');
      consent.psuIpAddress = c.req.header('psu-ip-address');
      consent.decoupledPsuId = psuId;
      consent.scaStatus = 'received';
      const self = `${v1}/consents/${consent.consentId}`;
      c.header('Location', new URL(self, c.req.url).toString());
      c.header('ASPSP-SCA-Approach', 'DECOUPLED');
      return c.json(
        {
          consentStatus: 'received',
          consentId: consent.consentId,
          psuMessage: `Please approve the access in the ${bank.definition.name} app.`,
          _links: { self: { href: self }, status: { href: `${self}/status` } },
        },
        201,
      );
    }
    const redirectUri = c.req.header('tpp-redirect-uri');
    if (!redirectUri || !isRedirectUri(redirectUri))
      return tppError(
        c,
        'FORMAT_ERROR',
        'TPP-Redirect-URI: required, an http(s) URL (redirect approach)',
        'TPP-Redirect-URI',
      );
    const nokRedirectUri = c.req.header('tpp-nok-redirect-uri') ?? redirectUri;
    if (!isRedirectUri(nokRedirectUri))
      return tppError(
        c,
        'FORMAT_ERROR',
        'TPP-Nok-Redirect-URI: must be an http(s) URL',
        'TPP-Nok-Redirect-URI',
      );

    const consent = bank.createConsent(request, redirectUri, nokRedirectUri);
    consent.psuIpAddress = c.req.header('psu-ip-address');
    const self = `${v1}/consents/${consent.consentId}`;
    // The 1.3 schema's Location is an absolute URL (the `_links` hrefs may be relative).
    c.header('Location', new URL(self, c.req.url).toString());
    c.header('ASPSP-SCA-Approach', 'REDIRECT');
    if (bank.definition.scaStart === 'oauth2')
      // OAuth2 as SCA approach (oauth2-server.ts): the PSU authorises at the bank's authorisation server.
      return c.json(
        {
          consentStatus: 'received',
          consentId: consent.consentId,
          _links: {
            self: { href: self },
            status: { href: `${self}/status` },
            scaOAuth: {
              href: bank.publishedHref(`/.well-known/oauth-authorization-server${base}`, c.req.url),
            },
          },
        },
        201,
      );
    return c.json(
      {
        consentStatus: 'received',
        consentId: consent.consentId,
        // Explicit start: the TPP POSTs the authorisation and gets the SCA page in its answer.
        _links: explicitStart
          ? {
              self: { href: self },
              status: { href: `${self}/status` },
              startAuthorisation: { href: `${self}/authorisations` },
            }
          : {
              scaRedirect: { href: `${publicUrl()}${base}/sca/${consent.consentId}` },
              self: { href: self },
              status: { href: `${self}/status` },
              scaStatus: { href: `${self}/authorisations/${consent.authorisationId}` },
            },
      },
      201,
    );
  });

  const consentOf = (c: Context): SandboxConsent | Response => {
    const consent = bank.consents.get(c.req.param('consentId') ?? '');
    return consent ?? tppError(c, 'CONSENT_UNKNOWN', 'The consent is not known to the bank');
  };

  app.get(`${v1}/consents/:consentId`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    return c.json(
      {
        access: consent.request.access,
        recurringIndicator: consent.request.recurringIndicator,
        validUntil: consent.validUntil,
        frequencyPerDay: consent.request.frequencyPerDay,
        combinedServiceIndicator: consent.request.combinedServiceIndicator,
        lastActionDate: consent.lastActionDate,
        consentStatus: bank.effectiveStatus(consent),
        _links: { account: { href: `${v1}/accounts` } },
      },
      200,
    );
  });

  app.get(`${v1}/consents/:consentId/status`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    return c.json({ consentStatus: bank.effectiveStatus(consent) }, 200);
  });

  // The consent's one authorisation, started implicitly with the consent or by the TPP's POST.
  app.get(`${v1}/consents/:consentId/authorisations`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    return c.json({ authorisationIds: consent.authorisationStarted ? [consent.authorisationId] : [] }, 200);
  });

  /**
   * Explicit start of the consent's authorisation (`startAuthorisation`, or with PSU-ID
   * `startAuthorisationWithPsuIdentification` for decoupled): redirect answers the SCA page, decoupled
   * asks the PSU in the app. A repeated start answers the same authorisation (a TPP's retry is harmless).
   */
  app.post(`${v1}/consents/:consentId/authorisations`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    if (bank.effectiveStatus(consent) !== 'received')
      return tppError(c, 'STATUS_INVALID', `The consent is ${bank.effectiveStatus(consent)}`);
    if (consent.embedded) return embedded.start(c, consent);
    const self = `${v1}/consents/${consent.consentId}`;
    const scaStatusLink = { href: `${self}/authorisations/${consent.authorisationId}` };
    if (consent.decoupled) {
      const psuId = c.req.header('psu-id');
      if (!psuId || !bank.psus.has(psuId))
        return tppError(c, 'PSU_CREDENTIALS_INVALID', 'PSU-ID: not a user of this bank', 'PSU-ID');
      if (consent.decoupledPsuId && consent.decoupledPsuId !== psuId)
        return tppError(c, 'STATUS_INVALID', 'The authorisation was started for another PSU');
      consent.decoupledPsuId = psuId;
      consent.authorisationStarted = true;
      if (consent.scaStatus === 'received') consent.scaStatus = 'started';
      c.header('ASPSP-SCA-Approach', 'DECOUPLED');
      return c.json(
        {
          scaStatus: consent.scaStatus,
          authorisationId: consent.authorisationId,
          psuMessage: `Please approve the access in the ${bank.definition.name} app.`,
          _links: { scaStatus: scaStatusLink },
        },
        201,
      );
    }
    consent.authorisationStarted = true;
    c.header('ASPSP-SCA-Approach', 'REDIRECT');
    return c.json(
      {
        scaStatus: consent.scaStatus,
        authorisationId: consent.authorisationId,
        _links: {
          scaRedirect: { href: `${publicUrl()}${base}/sca/${consent.consentId}` },
          scaStatus: scaStatusLink,
        },
      },
      201,
    );
  });

  app.get(`${v1}/consents/:consentId/authorisations/:authorisationId`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    if (c.req.param('authorisationId') !== consent.authorisationId || !consent.authorisationStarted)
      return tppError(c, 'RESOURCE_UNKNOWN', 'The authorisation is not known');
    return c.json({ scaStatus: consent.scaStatus }, 200);
  });

  app.put(`${v1}/consents/:consentId/authorisations/:authorisationId`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    if (c.req.param('authorisationId') !== consent.authorisationId || !consent.authorisationStarted)
      return tppError(c, 'RESOURCE_UNKNOWN', 'The authorisation is not known');
    if (!consent.embedded) return tppError(c, 'STATUS_INVALID', 'This authorisation takes no PSU data');
    return embedded.update(c, consent);
  });

  app.delete(`${v1}/consents/:consentId`, (c) => {
    const consent = consentOf(c);
    if (consent instanceof Response) return consent;
    // Deleting a consent that already ended changes nothing (the answer is the same).
    if (consent.status === 'received' || consent.status === 'valid') {
      consent.status = 'terminatedByTpp';
      consent.lastActionDate = isoDate(new Date());
    }
    return c.body(null, 204);
  });

  type Service = 'accounts' | 'balances' | 'transactions';

  /**
   * The checks every account-information read goes through: a known, valid consent that covers the
   * account and service, and — without the PSU present — the day's frequencyPerDay budget.
   */
  const authorise = (
    c: Context,
    service: Service,
    counter: string | null,
  ): { consent: SandboxConsent; account?: SandboxAccount } | Response => {
    const consentId = c.req.header('consent-id');
    if (!consentId) return tppError(c, 'FORMAT_ERROR', 'Consent-ID header is required', 'Consent-ID');
    const consent = bank.consents.get(consentId);
    if (!consent) return tppError(c, 'CONSENT_UNKNOWN', 'The consent is not known to the bank');
    const status = bank.effectiveStatus(consent);
    if (status === 'expired') return tppError(c, 'CONSENT_EXPIRED', 'The consent has expired');
    if (status !== 'valid' || !consent.grant)
      return tppError(c, 'CONSENT_INVALID', `The consent is ${status}`);
    // OAuth2 SCA (decision 0067): the reads need the consent's access token as well.
    if (bank.definition.scaStart === 'oauth2') {
      const bearer = bank.oauth.checkBearer(consent.consentId, c.req.header('authorization'));
      if (bearer === 'expired') return tppError(c, 'TOKEN_EXPIRED', 'The access token has expired');
      if (bearer !== 'ok')
        return tppError(
          c,
          'TOKEN_INVALID',
          'Authorization: a Bearer access token of this consent is required',
        );
    }

    let account: SandboxAccount | undefined;
    const accountId = c.req.param('accountId');
    if (accountId !== undefined) {
      account = bank.accounts.get(accountId);
      if (!account || !consent.grant.accountIds.has(accountId))
        return tppError(c, 'RESOURCE_UNKNOWN', 'The account is not known under this consent');
      if (service === 'balances' && !consent.grant.balances.has(accountId))
        return tppError(c, 'CONSENT_INVALID', 'The consent does not cover balances of this account');
      if (service === 'transactions' && !consent.grant.transactions.has(accountId))
        return tppError(c, 'CONSENT_INVALID', 'The consent does not cover transactions of this account');
    }
    if (counter !== null && !c.req.header('psu-ip-address') && !bank.countUnattendedRead(consent, counter))
      return tppError(
        c,
        'ACCESS_EXCEEDED',
        `The access frequency of ${consent.request.frequencyPerDay} a day without the PSU is used up`,
      );
    consent.lastActionDate = isoDate(new Date());
    return { consent, ...(account ? { account } : {}) };
  };

  const accountLinks = (account: SandboxAccount) => ({
    balances: { href: `${v1}/accounts/${account.resourceId}/balances` },
    transactions: { href: `${v1}/accounts/${account.resourceId}/transactions` },
  });

  app.get(`${v1}/accounts`, (c) => {
    const withBalance = c.req.query('withBalance') === 'true';
    const access = authorise(c, 'accounts', 'accounts');
    if (access instanceof Response) return access;
    const { grant } = access.consent;
    if (withBalance && grant!.listOnly)
      return tppError(c, 'CONSENT_INVALID', 'The consent does not cover balances');
    const accounts = [...grant!.accountIds].map((id) => bank.accounts.get(id)!);
    return c.json(
      {
        accounts: accounts.map((account) => ({
          ...accountDetailsOf(account),
          ...(withBalance && grant!.balances.has(account.resourceId)
            ? { balances: balancesOf(account) }
            : {}),
          ...(grant!.listOnly ? {} : { _links: accountLinks(account) }),
        })),
      },
      200,
    );
  });

  app.get(`${v1}/accounts/:accountId`, (c) => {
    const access = authorise(c, 'accounts', `${c.req.param('accountId')}:details`);
    if (access instanceof Response) return access;
    const account = access.account!;
    return c.json({ account: { ...accountDetailsOf(account), _links: accountLinks(account) } }, 200);
  });

  app.get(`${v1}/accounts/:accountId/balances`, (c) => {
    const access = authorise(c, 'balances', `${c.req.param('accountId')}:balances`);
    if (access instanceof Response) return access;
    const account = access.account!;
    return c.json(
      {
        account: { iban: account.iban, currency: account.definition.currency },
        balances: balancesOf(account),
      },
      200,
    );
  });

  app.get(`${v1}/accounts/:accountId/transactions`, (c) => {
    const query = c.req.query();
    const bookingStatus = query.bookingStatus as BookingStatus | undefined;
    if (!bookingStatus || !['booked', 'pending', 'both'].includes(bookingStatus))
      return tppError(c, 'FORMAT_ERROR', 'bookingStatus must be booked, pending or both', 'bookingStatus');
    for (const name of ['dateFrom', 'dateTo'] as const) {
      const value = query[name];
      if (value !== undefined && !isDate(value))
        return tppError(c, 'FORMAT_ERROR', `${name} must be a date YYYY-MM-DD`, name);
    }
    if (query.dateFrom && query.dateTo && query.dateFrom > query.dateTo)
      return tppError(c, 'FORMAT_ERROR', 'dateFrom is after dateTo', 'dateFrom');
    const pageSize = bank.definition.transactionPageSize;
    const page = query.page === undefined ? 1 : Number(query.page);
    if (!Number.isInteger(page) || page < 1)
      return tppError(c, 'FORMAT_ERROR', 'page must be a positive integer', 'page');
    // Only the first page of a query counts against frequencyPerDay; following `next` does not.
    const access = authorise(
      c,
      'transactions',
      page === 1 ? `${c.req.param('accountId')}:transactions` : null,
    );
    if (access instanceof Response) return access;
    const account = access.account!;

    const inRange = (date: string | undefined) =>
      date !== undefined &&
      (!query.dateFrom || date >= query.dateFrom) &&
      (!query.dateTo || date <= query.dateTo);
    let selected = historyOf(account).filter((transaction) =>
      transaction.booked
        ? bookingStatus !== 'pending' && inRange(transaction.bookingDate)
        : bookingStatus !== 'booked' && inRange(transaction.valueDate),
    );
    let next: string | undefined;
    if (pageSize !== null) {
      const start = (page - 1) * pageSize;
      if (start + pageSize < selected.length) {
        const params = new URLSearchParams({ ...query, page: String(page + 1) });
        next = `${v1}/accounts/${account.resourceId}/transactions?${params}`;
      }
      selected = selected.slice(start, start + pageSize);
    }
    const strip = ({ cents: _cents, booked: _booked, ...transaction }: (typeof selected)[number]) =>
      transaction;
    const report = {
      account: { iban: account.iban, currency: account.definition.currency },
      transactions: {
        ...(bookingStatus !== 'pending'
          ? { booked: selected.filter((transaction) => transaction.booked).map(strip) }
          : {}),
        ...(bookingStatus !== 'booked'
          ? { pending: selected.filter((transaction) => !transaction.booked).map(strip) }
          : {}),
        _links: {
          account: { href: `${v1}/accounts/${account.resourceId}` },
          ...(next ? { next: { href: next } } : {}),
        },
      },
    };
    // A long list as a download link (XS2A 1.3 `_links.download`): the report is a file of its own.
    const downloadAbove = bank.transactionsDownloadAbove;
    if (downloadAbove !== null && selected.length > downloadAbove) {
      const token = randomUUID();
      bank.transactionDownloads.set(token, { resourceId: account.resourceId, body: report });
      return c.json(
        {
          account: report.account,
          _links: {
            download: {
              href: bank.publishedHref(`${v1}/accounts/${account.resourceId}/transactions/download/${token}`),
            },
          },
        },
        200,
      );
    }
    return c.json(report, 200);
  });

  app.get(`${v1}/accounts/:accountId/transactions/download/:token`, (c) => {
    // Reading the report is part of the list already counted: no second frequencyPerDay read.
    const access = authorise(c, 'transactions', null);
    if (access instanceof Response) return access;
    const download = bank.transactionDownloads.get(c.req.param('token') ?? '');
    if (!download || download.resourceId !== access.account!.resourceId)
      return tppError(c, 'RESOURCE_UNKNOWN', 'The download is not known');
    return c.json(download.body as Record<string, unknown>, 200);
  });

  app.get(`${v1}/accounts/:accountId/transactions/:transactionId`, (c) => {
    const access = authorise(c, 'transactions', `${c.req.param('accountId')}:transactionDetails`);
    if (access instanceof Response) return access;
    const found = historyOf(access.account!).find(
      (transaction) => transaction.transactionId === c.req.param('transactionId'),
    );
    if (!found) return tppError(c, 'RESOURCE_UNKNOWN', 'The transaction is not known');
    const { cents: _cents, booked: _booked, ...transaction } = found;
    // XS2A 1.3: `transactionsDetails` is the transactionDetails object itself (no further nesting).
    return c.json({ transactionsDetails: transaction }, 200);
  });
}
