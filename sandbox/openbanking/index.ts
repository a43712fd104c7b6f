import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import type { MaintenanceNotice } from '../../domain/openbanking/xs2a.ts';
import { PUBLISHED_LINKS, SandboxBank } from './bank.ts';
import { registerBulkPaymentRoutes } from './bulk-payments.ts';
import { bookedTransaction, ibanOf, SANDBOX_BANKS, type SandboxBankDefinition } from './catalogue.ts';
import { registerEmbeddedConsentControls } from './embedded-consents.ts';
import { registerOAuth2Server } from './oauth2-server.ts';
import { registerPisRoutes } from './pis.ts';
import { registerScaPage } from './sca-page.ts';
import { type SmsCarrierAccount, smppSmsSender } from './sms-sender.ts';
import { tppError } from './tpp-errors.ts';
import { registerTppSignatureCheck } from './tpp-signature-check.ts';
import { registerXs2aRoutes } from './xs2a-routes.ts';

/**
 * The sandbox banks: one HTTP server, each bank under its own base path (`/bank-a`, `/bank-b`,
 * `/bank-c`), speaking the XS2A 1.3 subset of xs2a-routes.ts, with the hosted SCA page of sca-page.ts.
 *
 *   GET  /directory                                     the banks, for the platform's bank directory
 *   POST /{code}/sandbox/psus                           seed a PSU with N transactions per account
 *   POST /{code}/sandbox/accounts/{iban}/transactions   book a new transaction on an account (today)
 *   POST /{code}/sandbox/consents/{id}/revoke           the PSU revokes the consent at the bank
 *   POST /{code}/sandbox/consents/{id}/expire           the consent's validUntil moves to yesterday
 *   PUT  /{code}/sandbox/maintenance                    replace the bank's maintenance notices
 *   DELETE /{code}/sandbox/maintenance                  back to the bank's default notices
 *   PUT  /{code}/sandbox/transactions-download          { above: N | null }: longer lists as a download link
 *   PUT  /{code}/sandbox/published-links                { links }: where the bank's scaOAuth and download
 *        links point: `own-host` (default), `second-host`, `second-host-without-scheme`, `psd2-path`
 *
 * The /sandbox endpoints are test controls with no counterpart at a real bank (and no authentication).
 *
 * The second host (`secondUrl`, another port on the same loopback address) is the banks' other host,
 * as a bank's downloads or authorisation server may live on one (decision 0082): it serves everything
 * the first does, and at its root one bank's XS2A interface as a bank with a host of its own publishes
 * it, under `/v1/…` and `/psd2/v1/…` (`rootBank`, default Bank A). The directory lists it in every
 * bank's `linkHosts`.
 */

export interface SandboxBanksOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * The URL a person's browser reaches this server at, used in the SCA page links (`scaRedirect`);
   * default http://host:port. The platform's links (the directory's `xs2aBaseUrl`) use the origin the
   * directory was requested at, so a container network name (http://sandbox:4020) and a browser-facing
   * one (http://localhost:4020) both work.
   */
  publicUrl?: string;
  /** Page size of Bank B's transactions (default 50). */
  transactionPageSize?: number;
  /**
   * Bank C announces (and keeps) a window every Sunday 01:00–03:00 UTC (default true). Tests turn it
   * off so that their outcome does not depend on the day; they open windows through the sandbox controls.
   */
  weeklyMaintenance?: boolean;
  /** The SMS carrier the banks send their one-time codes through (embedded SCA); none: no embedded SCA. */
  sms?: SmsCarrierAccount;
  /** How long a one-time code stays valid (default 5 minutes). */
  otpTtlMs?: number;
  /** The port of the banks' second host (0 or undefined picks a free port). */
  secondPort?: number;
  /** The bank whose XS2A interface the second host serves at its root (default bank-a). */
  rootBank?: string;
}

export interface SandboxBanks {
  /** Where the server listens (http://host:port). */
  url: string;
  /** Where browsers reach it: the base of the SCA page links. */
  publicUrl: string;
  /** GET it for the directory of banks (OPENBANKING_BANK_DIRECTORY_URL). */
  directoryUrl: string;
  /** The banks' second host (http://host:port): the same banks, and `rootBank` at its root. */
  secondUrl: string;
  banks: Map<string, SandboxBank>;
  stop(): Promise<void>;
}

export interface DirectoryEntry {
  code: string;
  name: string;
  country: string;
  bic: string;
  xs2aBaseUrl: string;
  bankFlowType: SandboxBankDefinition['bankFlowType'];
  supportsPagedTransactions: boolean;
  linkHosts: string[];
}

const noticesSchema = z.object({
  notices: z
    .array(
      z.object({
        id: z.string().min(1).optional(),
        startsAt: z.iso.datetime({ offset: true }),
        endsAt: z.iso.datetime({ offset: true }),
        message: z.string().min(1).max(500),
      }),
    )
    .max(20),
});

const bookingSchema = z.object({
  amount: z
    .string()
    .regex(/^-?\d{1,9}(\.\d{1,2})?$/, 'amount must be a signed decimal, e.g. "-12.50"')
    .refine((amount) => Number(amount) !== 0, 'amount must not be zero'),
  counterpartyName: z.string().min(1).max(70).default('Sandbox Counterparty'),
  remittanceInformation: z.string().min(1).max(140).default('Sandbox transfer'),
});

const seedSchema = z.object({
  psuId: z
    .string()
    .regex(/^[a-z0-9-]{3,40}$/)
    .optional(),
  ownerName: z.string().min(1).max(100).optional(),
  accounts: z
    .array(
      z.object({
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .default('BGN'),
        transactions: z.number().int().min(0).max(100_000).default(100),
        historyDays: z.number().int().min(1).max(3650).default(365),
      }),
    )
    .min(1)
    .max(10)
    .default([{ currency: 'BGN', transactions: 100, historyDays: 365 }]),
});

export async function startSandboxBanks(options: SandboxBanksOptions = {}): Promise<SandboxBanks> {
  const host = options.host ?? '127.0.0.1';
  let publicUrl = options.publicUrl?.replace(/\/+$/, '') ?? '';
  const banks = new Map(
    SANDBOX_BANKS.map((definition) => [
      definition.code,
      new SandboxBank(
        definition.transactionPageSize !== null && options.transactionPageSize !== undefined
          ? { ...definition, transactionPageSize: options.transactionPageSize }
          : definition,
        options.weeklyMaintenance ?? true,
      ),
    ]),
  );

  const stopped = new AbortController();
  const sendSms = options.sms ? smppSmsSender(options.sms) : undefined;
  const app = new Hono();
  let secondPort = 0;
  app.get('/directory', (c) => {
    const { origin, hostname } = new URL(c.req.url);
    return c.json({
      banks: [...banks.values()].map(
        ({ definition }): DirectoryEntry => ({
          code: definition.code,
          name: definition.name,
          country: definition.country,
          bic: definition.bic,
          xs2aBaseUrl: `${origin}/${definition.code}`,
          bankFlowType: definition.bankFlowType,
          supportsPagedTransactions: definition.transactionPageSize !== null,
          linkHosts: [`${hostname}:${secondPort}`],
        }),
      ),
    });
  });

  for (const bank of banks.values()) {
    registerTppSignatureCheck(app, bank);
    registerXs2aRoutes(app, bank, () => publicUrl, {
      ...(sendSms ? { sendSms } : {}),
      ...(options.otpTtlMs !== undefined ? { otpTtlMs: options.otpTtlMs } : {}),
    });
    registerEmbeddedConsentControls(app, bank);
    registerScaPage(app, bank);
    if (bank.definition.scaStart === 'oauth2') registerOAuth2Server(app, bank, () => publicUrl);
    registerPisRoutes(app, bank, {
      publicUrl: () => publicUrl,
      stopped: stopped.signal,
      ...(sendSms ? { sendSms } : {}),
      ...(options.otpTtlMs !== undefined ? { otpTtlMs: options.otpTtlMs } : {}),
    });
    registerBulkPaymentRoutes(app, bank, bank.ledger, () => publicUrl);
    const admin = `/${bank.definition.code}/sandbox`;

    app.post(`${admin}/psus`, async (c) => {
      const parsed = seedSchema.safeParse(await c.req.json().catch(() => ({})));
      if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
      if (parsed.data.psuId && bank.psus.has(parsed.data.psuId))
        return c.json({ error: 'psuId is taken' }, 409);
      const psu = bank.seedPsu(parsed.data);
      return c.json(
        {
          psuId: psu.psuId,
          password: psu.password,
          accounts: psu.accounts.map((account) => ({
            iban: account.iban,
            resourceId: account.resourceId,
            currency: account.definition.currency,
            transactions: account.definition.transactionCount,
          })),
        },
        201,
      );
    });

    app.post(`${admin}/accounts/:iban/transactions`, async (c) => {
      const account = [...bank.accounts.values()].find((candidate) => candidate.iban === c.req.param('iban'));
      if (!account) return tppError(c, 'RESOURCE_UNKNOWN', 'No such account at this bank');
      const parsed = bookingSchema.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
      const transaction = bookedTransaction(account, parsed.data);
      account.added.unshift(transaction);
      const { cents: _cents, booked: _booked, ...booked } = transaction;
      return c.json({ transaction: booked }, 201);
    });

    app.post(`${admin}/consents/:consentId/:action{revoke|expire}`, (c) => {
      const consent = bank.consents.get(c.req.param('consentId'));
      if (!consent) return tppError(c, 'CONSENT_UNKNOWN', 'The consent is not known to the bank');
      if (c.req.param('action') === 'revoke') {
        if (consent.status === 'valid') consent.status = 'revokedByPsu';
      } else {
        consent.validUntil = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      }
      return c.body(null, 204);
    });

    // The PSU answers a decoupled consent in the bank's app (the app is this control).
    app.post(`${admin}/consents/:consentId/decoupled/:decision{approve|deny}`, (c) => {
      const consent = bank.consents.get(c.req.param('consentId'));
      if (!consent) return tppError(c, 'CONSENT_UNKNOWN', 'The consent is not known to the bank');
      const psu = consent.decoupledPsuId ? bank.psus.get(consent.decoupledPsuId) : undefined;
      if (!psu || consent.status !== 'received')
        return tppError(c, 'STATUS_INVALID', 'No decoupled approval of this consent is waiting');
      const grant = c.req.param('decision') === 'approve' ? bank.grantFor(consent, psu) : undefined;
      if (grant) {
        consent.psuId = psu.psuId;
        consent.grant = grant;
      }
      bank.decide(consent, grant !== undefined);
      return c.body(null, 204);
    });

    app.put(`${admin}/maintenance`, async (c) => {
      const parsed = noticesSchema.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
      const notices: MaintenanceNotice[] = parsed.data.notices.map((notice, index) => ({
        id: notice.id ?? `notice-${index + 1}`,
        startsAt: new Date(notice.startsAt).toISOString(),
        endsAt: new Date(notice.endsAt).toISOString(),
        message: notice.message,
      }));
      bank.setMaintenance(notices);
      return c.json({ notices: bank.maintenanceNotices() }, 200);
    });

    app.delete(`${admin}/maintenance`, (c) => {
      bank.setMaintenance(null);
      return c.json({ notices: bank.maintenanceNotices() }, 200);
    });

    app.put(`${admin}/transactions-download`, async (c) => {
      const body = (await c.req.json().catch(() => undefined)) as { above?: unknown } | undefined;
      const above = body?.above;
      if (above !== null && !(typeof above === 'number' && Number.isInteger(above) && above >= 0))
        return c.json({ error: 'above: a whole number of transactions, or null' }, 400);
      bank.transactionsDownloadAbove = above;
      return c.json({ above }, 200);
    });

    app.put(`${admin}/published-links`, async (c) => {
      const parsed = z
        .object({ links: z.enum(PUBLISHED_LINKS) })
        .safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: `links: one of ${PUBLISHED_LINKS.join(', ')}` }, 400);
      bank.publishedLinks = parsed.data.links;
      return c.json({ links: bank.publishedLinks }, 200);
    });
  }
  app.notFound((c) => tppError(c, 'RESOURCE_UNKNOWN', `${c.req.method} ${c.req.path} does not exist`));

  const listen = (fetch: (request: Request) => Response | Promise<Response>, port: number) =>
    new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch, port, hostname: host }, () => resolve(started));
    });
  const server = await listen(app.fetch, options.port ?? 0);
  // The second host: `/v1/…` and `/psd2/v1/…` are the root bank's interface; every other path as on the first.
  const rootBank = `/${options.rootBank ?? 'bank-a'}/v1`;
  const second = await listen(async (request) => {
    const target = new URL(request.url);
    const rest = /^(?:\/psd2)?(\/v1(?:\/.*)?)$/.exec(target.pathname)?.[1];
    if (rest === undefined) return app.fetch(request);
    target.pathname = `${rootBank}${rest.slice('/v1'.length)}`;
    const body = ['GET', 'HEAD'].includes(request.method) ? undefined : await request.arrayBuffer();
    return app.fetch(new Request(target, { method: request.method, headers: request.headers, body }));
  }, options.secondPort ?? 0);
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  secondPort = (second.address() as AddressInfo).port;
  const secondUrl = `http://${host}:${secondPort}`;
  for (const bank of banks.values()) bank.secondUrl = secondUrl;
  if (!publicUrl) publicUrl = url;
  const close = (listening: ReturnType<typeof serve>) =>
    new Promise<void>((resolve) => {
      listening.close(() => resolve());
      if ('closeAllConnections' in listening) listening.closeAllConnections();
    });
  return {
    url,
    publicUrl,
    directoryUrl: `${url}/directory`,
    secondUrl,
    banks,
    stop: async () => {
      stopped.abort();
      await Promise.all([close(server), close(second)]);
    },
  };
}

export { ibanOf, SANDBOX_BANKS };
