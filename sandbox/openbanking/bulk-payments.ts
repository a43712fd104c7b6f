import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { type Html, html, htmlPage } from '../../api/shared/html.ts';
import { decimalOf, minorOf } from '../../domain/openbanking/payments.ts';
import type { SandboxBank } from './bank.ts';
import { loginFields } from './login-form.ts';
import type { PaymentLedger } from './payment-ledger.ts';
import { tppError } from './tpp-errors.ts';

/**
 * Bulk payments of one sandbox bank, Berlin Group 1.3 shapes, under `/{code}/v1`:
 *
 *   POST /v1/bulk-payments/{product}                 initiate: { debtorAccount, paymentInformationId?,
 *                                                      batchBookingPreferred?, payments: [...] } → 201 RCVD
 *                                                      with `_links.scaRedirect` (absolute) and an absolute Location
 *   GET  /v1/bulk-payments/{product}/{paymentId}        the bulk; each entry with its `transactionStatus`
 *                                                      (ASPSP-specific); `offset`/`limit` page the entries
 *   GET  /v1/bulk-payments/{product}/{paymentId}/status { transactionStatus }
 *   DELETE /v1/bulk-payments/{product}/{paymentId}      cancel a bulk not yet authorised (204; else 409)
 *   GET/POST /{code}/sca-bulk/{paymentId}[/login|/decision]   the hosted SCA page (redirect approach)
 *
 * A repeated initiation with the same debtor and `paymentInformationId` answers the bulk already
 * initiated (a TPP retrying after a lost answer starts no second bulk). When the PSU approves, the bank
 * executes every entry at once: each is debited from the payment ledger (idempotent by the entry's
 * `endToEndIdentification`, so no entry is ever booked twice) and is ACSC, or RJCT when the ledger is
 * told to reject payments to its creditor IBAN or refuses the debit (funds, currency). The bulk is then
 * ACSC (all booked), PART (some) or RJCT (none). A debtor IBAN told to be `slow` (or to `timeout`) makes
 * the bulk's reads answer late too.
 */

export const MAX_SANDBOX_BULK_ENTRIES = 10_000;

const ENTRY_STATUSES = ['RCVD', 'ACSC', 'RJCT'] as const;
type EntryStatus = (typeof ENTRY_STATUSES)[number];
type BulkStatus = 'RCVD' | 'ACSC' | 'PART' | 'RJCT' | 'CANC';

interface SandboxBulkEntry {
  endToEndIdentification: string;
  instructedAmount: { currency: string; amount: string };
  creditorAccount: { iban: string };
  creditorName: string;
  remittanceInformationUnstructured?: string;
  remittanceInformationStructured?: Record<string, string>;
  transactionStatus: EntryStatus;
  /** ISO 20022 reason of a rejection: AC04 (account closed, the creditor is marked reject), AM04 (funds). */
  reasonCode?: string;
}

export interface SandboxBulk {
  paymentId: string;
  product: string;
  paymentInformationId: string;
  debtorIban: string;
  entries: SandboxBulkEntry[];
  transactionStatus: BulkStatus;
  scaStatus: 'received' | 'psuAuthenticated' | 'finalised' | 'failed';
  redirectUri: string;
  nokRedirectUri: string;
  sessionHash?: Buffer;
  psuId?: string;
}

const amount = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be a decimal with at most two decimals');
const iban = z.string().refine((value) => isValidIBAN(value), 'not a valid IBAN');
const bulkRequestSchema = z.object({
  batchBookingPreferred: z.boolean().optional(),
  paymentInformationId: z.string().min(1).max(35).optional(),
  debtorAccount: z.object({ iban, currency: z.string().optional() }),
  requestedExecutionDate: z.string().optional(),
  payments: z
    .array(
      z.object({
        endToEndIdentification: z.string().min(1).max(35),
        instructedAmount: z.object({ currency: z.string().regex(/^[A-Z]{3}$/), amount }),
        creditorAccount: z.object({ iban }),
        creditorName: z.string().min(1).max(70),
        remittanceInformationUnstructured: z.string().max(140).optional(),
        remittanceInformationStructured: z.record(z.string(), z.string()).optional(),
      }),
    )
    .min(1)
    .max(MAX_SANDBOX_BULK_ENTRIES),
});

const sha256 = (text: string) => createHash('sha256').update(text).digest();

const isHttpUrl = (value: string | undefined): value is string => {
  try {
    return value !== undefined && ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The bulks of one sandbox bank by paymentId. */
export type SandboxBulks = Map<string, SandboxBulk>;

const bulksByBank = new WeakMap<SandboxBank, SandboxBulks>();
/** What a sandbox bank holds of its bulks (tests read what the bank received). */
export const bulksOf = (bank: SandboxBank): SandboxBulks => bulksByBank.get(bank) ?? new Map();

export function registerBulkPaymentRoutes(
  app: Hono,
  bank: SandboxBank,
  ledger: PaymentLedger,
  publicUrl: () => string,
): SandboxBulks {
  const bulks: SandboxBulks = new Map();
  bulksByBank.set(bank, bulks);
  const byInformationId = new Map<string, SandboxBulk>();
  const { code, name } = bank.definition;
  const v1 = `/${code}/v1/bulk-payments`;
  const scaBase = `/${code}/sca-bulk`;
  const links = (bulk: SandboxBulk, origin: string) => {
    const self = `${origin}${v1}/${bulk.product}/${bulk.paymentId}`;
    return {
      scaRedirect: { href: `${publicUrl()}${scaBase}/${bulk.paymentId}` },
      self: { href: self },
      status: { href: `${self}/status` },
    };
  };

  app.post(`${v1}/:product`, async (c) => {
    const parsed = bulkRequestSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.join('.');
      return tppError(c, 'FORMAT_ERROR', `${path || 'body'}: ${issue.message}`, path);
    }
    const request = parsed.data;
    const redirectUri = c.req.header('tpp-redirect-uri');
    if (!isHttpUrl(redirectUri))
      return tppError(c, 'FORMAT_ERROR', 'TPP-Redirect-URI: required, an http(s) URL', 'TPP-Redirect-URI');
    const nokRedirectUri = c.req.header('tpp-nok-redirect-uri') ?? redirectUri;
    if (!isHttpUrl(nokRedirectUri))
      return tppError(
        c,
        'FORMAT_ERROR',
        'TPP-Nok-Redirect-URI: must be an http(s) URL',
        'TPP-Nok-Redirect-URI',
      );
    const debtorIban = request.debtorAccount.iban;
    if (!ledger.account(debtorIban))
      return tppError(
        c,
        'RESOURCE_UNKNOWN',
        'The debtor account is not an account of this bank',
        'debtorAccount',
      );
    if ((await ledger.apply(debtorIban, c.req.raw.signal)) === 'reject')
      return tppError(c, 'PAYMENT_FAILED', 'The bank refuses payments from this account');
    const origin = new URL(c.req.url).origin;

    const informationKey = request.paymentInformationId && `${debtorIban}|${request.paymentInformationId}`;
    let bulk = informationKey ? byInformationId.get(informationKey) : undefined;
    if (!bulk) {
      bulk = {
        paymentId: randomUUID(),
        product: c.req.param('product'),
        paymentInformationId: request.paymentInformationId ?? randomUUID().replaceAll('-', ''),
        debtorIban,
        entries: request.payments.map((entry) => ({ ...entry, transactionStatus: 'RCVD' as const })),
        transactionStatus: 'RCVD',
        scaStatus: 'received',
        redirectUri,
        nokRedirectUri,
      };
      bulks.set(bulk.paymentId, bulk);
      if (informationKey) byInformationId.set(informationKey, bulk);
    }
    c.header('Location', links(bulk, origin).self.href);
    c.header('ASPSP-SCA-Approach', 'REDIRECT');
    return c.json(
      { transactionStatus: bulk.transactionStatus, paymentId: bulk.paymentId, _links: links(bulk, origin) },
      201,
    );
  });

  const bulkOf = (c: Context): SandboxBulk | Response => {
    const bulk = bulks.get(c.req.param('paymentId') ?? '');
    if (!bulk || bulk.product !== c.req.param('product'))
      return tppError(c, 'RESOURCE_UNKNOWN', 'The bulk payment is not known to the bank');
    return bulk;
  };

  // Cancellation by the TPP (the user did not authorise in time): only before it was authorised.
  app.delete(`${v1}/:product/:paymentId`, (c) => {
    const bulk = bulkOf(c);
    if (bulk instanceof Response) return bulk;
    if (bulk.transactionStatus === 'CANC') return c.body(null, 204);
    if (bulk.transactionStatus !== 'RCVD')
      return tppError(
        c,
        'STATUS_INVALID',
        `The bulk is ${bulk.transactionStatus}: it can no longer be cancelled`,
      );
    bulk.transactionStatus = 'CANC';
    bulk.scaStatus = 'failed';
    return c.body(null, 204);
  });

  app.get(`${v1}/:product/:paymentId/status`, (c) => {
    const bulk = bulkOf(c);
    if (bulk instanceof Response) return bulk;
    return c.json({ transactionStatus: bulk.transactionStatus }, 200);
  });

  app.get(`${v1}/:product/:paymentId`, async (c) => {
    const bulk = bulkOf(c);
    if (bulk instanceof Response) return bulk;
    // A debtor told to answer slowly (or not at all) does so here too: the batch reads can be slowed.
    await ledger.apply(bulk.debtorIban, c.req.raw.signal);
    const offset = Number(c.req.query('offset') ?? 0);
    const limit = Number(c.req.query('limit') ?? MAX_SANDBOX_BULK_ENTRIES);
    if (!Number.isInteger(offset) || offset < 0)
      return tppError(c, 'FORMAT_ERROR', 'offset must be a non-negative integer', 'offset');
    if (!Number.isInteger(limit) || limit < 1)
      return tppError(c, 'FORMAT_ERROR', 'limit must be a positive integer', 'limit');
    return c.json(
      {
        paymentInformationId: bulk.paymentInformationId,
        debtorAccount: { iban: bulk.debtorIban },
        transactionStatus: bulk.transactionStatus,
        numberOfEntries: bulk.entries.length,
        payments: bulk.entries.slice(offset, offset + limit),
      },
      200,
    );
  });

  // ─── The hosted SCA page of a bulk (same forms as the consent's, so the same driver works) ────────

  const page =
    (title: string, body: Html, status: 200 | 401 | 404 | 409 = 200, after?: Html) =>
    (c: Context) =>
      c.html(htmlPage({ title, body, ...(after ? { after } : {}) }), status);

  const openBulk = (c: Context): SandboxBulk | Response | Promise<Response> => {
    const bulk = bulks.get(c.req.param('paymentId') ?? '');
    if (!bulk) return page(name, html`<h1>Unknown request</h1><p>This link is not valid.</p>`, 404)(c);
    if (bulk.scaStatus === 'finalised' || bulk.scaStatus === 'failed')
      return page(name, html`<h1>Request closed</h1><p>This bulk payment was already decided.</p>`, 409)(c);
    return bulk;
  };

  const loginForm = (bulk: SandboxBulk, alert?: string, status: 200 | 401 = 200) =>
    page(
      `${name}: authorise a bulk payment`,
      html`<h1>${name}</h1>
<p>A provider asks you to authorise ${bulk.entries.length} payments from ${bulk.debtorIban}.</p>
${loginFields(`${scaBase}/${bulk.paymentId}/login`, alert)}
<form method="post" action="${scaBase}/${bulk.paymentId}/decision">
<input type="hidden" name="decision" value="deny">
<button type="submit">Cancel</button>
</form>`,
      status,
    );

  const returnToProvider = (c: Context, bulk: SandboxBulk) => {
    const approved = bulk.scaStatus === 'finalised';
    return page(
      `${name}: returning to the provider`,
      html`<h1>${approved ? 'Payments authorised' : 'Payments refused'}</h1>
<form id="return" method="post" action="${approved ? bulk.redirectUri : bulk.nokRedirectUri}">
<input type="hidden" name="paymentId" value="${bulk.paymentId}">
<input type="hidden" name="transactionStatus" value="${bulk.transactionStatus}">
<button type="submit">Continue</button>
</form>`,
      200,
      html`<script>document.getElementById("return").submit();</script>`,
    )(c);
  };

  app.get(`${scaBase}/:paymentId`, (c) => {
    const bulk = openBulk(c);
    return bulk instanceof Response || bulk instanceof Promise ? bulk : loginForm(bulk)(c);
  });

  app.post(`${scaBase}/:paymentId/login`, async (c) => {
    const bulk = openBulk(c);
    if (bulk instanceof Response || bulk instanceof Promise) return bulk;
    const form = await c.req.parseBody();
    const psu = bank.psus.get(String(form.psuId ?? ''));
    const expected = sha256(psu?.password ?? randomBytes(16).toString('hex'));
    if (!psu || !timingSafeEqual(expected, sha256(String(form.password ?? ''))))
      return loginForm(bulk, 'The user ID or password is wrong.', 401)(c);
    if (!psu.accounts.some((account) => account.iban === bulk.debtorIban))
      return loginForm(bulk, 'The account paid from is not yours.', 401)(c);
    const session = randomBytes(24).toString('hex');
    bulk.sessionHash = sha256(session);
    bulk.psuId = psu.psuId;
    bulk.scaStatus = 'psuAuthenticated';
    const total = bulk.entries.reduce((sum, entry) => sum + minorOf(entry.instructedAmount.amount), 0);
    return page(
      `${name}: approve the payments`,
      html`<h1>Approve ${bulk.entries.length} payments?</h1>
<p>From ${bulk.debtorIban}, ${decimalOf(total)} in all.</p>
<form method="post" action="${scaBase}/${bulk.paymentId}/decision">
<input type="hidden" name="session" value="${session}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    )(c);
  });

  app.post(`${scaBase}/:paymentId/decision`, async (c) => {
    const bulk = openBulk(c);
    if (bulk instanceof Response || bulk instanceof Promise) return bulk;
    const form = await c.req.parseBody();
    const decision = String(form.decision ?? '');
    if (decision === 'deny') {
      bulk.scaStatus = 'failed';
      bulk.transactionStatus = 'CANC';
      return returnToProvider(c, bulk);
    }
    const session = String(form.session ?? '');
    if (decision !== 'approve' || !bulk.sessionHash || !timingSafeEqual(bulk.sessionHash, sha256(session)))
      return loginForm(bulk, 'Please log in to approve the payments.', 401)(c);
    bulk.scaStatus = 'finalised';
    bulk.sessionHash = undefined;
    execute(bulk, ledger);
    return returnToProvider(c, bulk);
  });

  return bulks;
}

/** Books every entry of an authorised bulk once; the bulk's status follows from its entries. */
function execute(bulk: SandboxBulk, ledger: PaymentLedger): void {
  for (const entry of bulk.entries) {
    if (entry.transactionStatus !== 'RCVD') continue;
    if (ledger.behaviourOf(entry.creditorAccount.iban).kind === 'reject') {
      entry.transactionStatus = 'RJCT';
      entry.reasonCode = 'AC04';
      continue;
    }
    const outcome = ledger.debit({
      iban: bulk.debtorIban,
      amountMinor: minorOf(entry.instructedAmount.amount),
      currency: entry.instructedAmount.currency,
      paymentId: entry.endToEndIdentification,
    });
    entry.transactionStatus = outcome.booked ? 'ACSC' : 'RJCT';
    if (!outcome.booked) entry.reasonCode = outcome.reason === 'insufficient_funds' ? 'AM04' : 'AC01';
  }
  const booked = bulk.entries.filter((entry) => entry.transactionStatus === 'ACSC').length;
  bulk.transactionStatus = booked === bulk.entries.length ? 'ACSC' : booked === 0 ? 'RJCT' : 'PART';
}
