import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import {
  checksumMatches,
  type NotificationLine,
  parseNotification,
  signatureMatches,
} from '../../domain/epay-merchant.ts';

/**
 * A simulated merchant of the payment-collection gateway, speaking the real protocols over HTTP, for
 * tests and the demo. It hosts any number of merchants (by MIN) under its base URL:
 *
 *   POST /<MIN>/notify              notifications: verifies CHECKSUM (constant time) and the RSA
 *                                   SIGNATURE (public key fetched from the gateway), records them and
 *                                   answers one `INVOICE=<n>:STATUS=<OK|ERR|NO>` line per invoice
 *   GET  /<MIN>/notifications       what it received for a merchant (last 100 POSTs, `?invoice=`
 *                                   narrows), whether CHECKSUM and SIGNATURE verified, what it answered
 *   GET  /<MIN>/billing/pay/init    billing check of its customer base (IDN → amount due)
 *   GET  /<MIN>/billing/pay/confirm billing confirmation (marks the customer paid)
 *   PUT  /merchants/<MIN>           registers a merchant: JSON {secret, billingIdnPrefix?, publicKeyUrl?}
 *
 * Every answer can be scripted per invoice or IDN (tests: ERR twice then OK, NO, down with 503,
 * billing 80 once then 00, ...). Unscripted, it behaves as a correct merchant: OK to every valid
 * notification (repeating its first final answer when notified again, as ePay asks), and billing
 * codes computed from its customer base.
 */

export type NotificationAnswer = 'OK' | 'ERR' | 'NO' | 'OMIT';
export type BillingAnswer = '00' | '13' | '14' | '62' | '80' | '93' | '94' | '96';

export type ReceivedNotificationLine = NotificationLine;

export interface ReceivedNotification {
  min: string;
  at: number;
  encoded: string;
  checksum: string;
  signature: string;
  checksumValid: boolean;
  signatureValid: boolean;
  lines: ReceivedNotificationLine[];
  httpStatus: number;
  reply: string;
}

export interface BillingCustomer {
  idn: string;
  /** Amount due in minor units; 0 when nothing is due. */
  amountMinor: number;
  shortDesc?: string | undefined;
  invoices?: string | undefined;
  paid?: boolean;
}

export interface BillingCall {
  min: string;
  phase: 'init' | 'confirm';
  at: number;
  params: Record<string, string>;
  checksumValid: boolean;
  code: BillingAnswer | `HTTP ${number}`;
}

interface MerchantAccount {
  min: string;
  secret: string;
  customers: Map<string, BillingCustomer>;
  confirmedTids: Set<string>;
  /** First final (OK/NO) answer per invoice+status: repeated when notified again. */
  finalAnswers: Map<string, 'OK' | 'NO'>;
  replyForm: 'long' | 'short';
}

export interface SandboxMerchantOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

const hmacSha1 = (secret: string, text: string) => createHmac('sha1', secret).update(text, 'utf8').digest();

function sameHex(expected: Buffer, presented: string): boolean {
  if (!/^[0-9a-fA-F]{40}$/.test(presented)) return false;
  return timingSafeEqual(expected, Buffer.from(presented, 'hex'));
}

/** The billing CHECKSUM as the merchant computes it: sorted `NAMEVALUE\n` lines, HMAC-SHA1 hex. */
function billingChecksumInput(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((name) => name !== 'CHECKSUM')
    .sort()
    .map((name) => `${name}${params[name]}\n`)
    .join('');
}

/** GET /<MIN>/notifications shows at most this many POSTs (the latest). */
const RECEIVED_SHOWN = 100;

export async function startSandboxMerchant(options: SandboxMerchantOptions = {}) {
  const host = options.host ?? '127.0.0.1';
  const accounts = new Map<string, MerchantAccount>();
  const notifications: ReceivedNotification[] = [];
  const billingCalls: BillingCall[] = [];
  /** Per `<MIN>:<invoice>`: answers used one per notification, the last one repeated. */
  const notificationScripts = new Map<string, NotificationAnswer[]>();
  /** Per MIN: HTTP statuses answered to the next notification POSTs (the merchant is down). */
  const downScripts = new Map<string, number[]>();
  /** Per `<MIN>:<IDN>:<phase>`: codes answered before the customer base is consulted. */
  const billingScripts = new Map<string, (BillingAnswer | number)[]>();
  let publicKeyUrl: string | undefined;
  let publicKeyPem: string | undefined;

  async function publicKey(refresh: boolean): Promise<string | undefined> {
    if (!publicKeyUrl) return undefined;
    if (publicKeyPem && !refresh) return publicKeyPem;
    const response = await fetch(publicKeyUrl).catch(() => undefined);
    if (response?.ok) publicKeyPem = await response.text();
    return publicKeyPem;
  }

  async function signatureValid(encoded: string, signature: string): Promise<boolean> {
    const check = (pem: string | undefined) => pem !== undefined && signatureMatches(pem, encoded, signature);
    // A failure with a cached key is checked once more with a fresh one (the key may have rotated).
    return check(await publicKey(false)) || check(await publicKey(true));
  }

  function register(input: { min: string; secret: string; billingIdnPrefix?: string | undefined }) {
    const account: MerchantAccount = accounts.get(input.min) ?? {
      min: input.min,
      secret: input.secret,
      customers: new Map(),
      confirmedTids: new Set(),
      finalAnswers: new Map(),
      replyForm: 'long',
    };
    account.secret = input.secret;
    accounts.set(input.min, account);
    if (input.billingIdnPrefix) {
      // A small customer base for the demo: two customers with bills, one with nothing due.
      // IDNs of 10 digits, as the office reads them: the prefix, zeros, the customer number.
      const idn = (n: number) =>
        `${input.billingIdnPrefix}${String(n).padStart(10 - (input.billingIdnPrefix?.length ?? 0), '0')}`;
      for (const customer of [
        { idn: idn(1), amountMinor: 2500, shortDesc: 'Electricity, May', invoices: '5001' },
        { idn: idn(2), amountMinor: 4999, shortDesc: 'Water, May', invoices: '5002,5003' },
        { idn: idn(3), amountMinor: 0, shortDesc: 'Nothing due' },
      ]) {
        if (!account.customers.has(customer.idn)) account.customers.set(customer.idn, customer);
      }
    }
    return account;
  }

  const app = new Hono();

  app.put('/merchants/:min', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as
      | { secret?: unknown; billingIdnPrefix?: unknown; publicKeyUrl?: unknown }
      | undefined;
    if (!body || typeof body.secret !== 'string' || body.secret === '') {
      return c.json({ error: 'secret is required' }, 400);
    }
    register({
      min: c.req.param('min'),
      secret: body.secret,
      billingIdnPrefix: typeof body.billingIdnPrefix === 'string' ? body.billingIdnPrefix : undefined,
    });
    if (typeof body.publicKeyUrl === 'string') publicKeyUrl = body.publicKeyUrl;
    return c.body(null, 204);
  });

  app.post('/:min/notify', async (c) => {
    const min = c.req.param('min');
    const account = accounts.get(min);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const encoded = text('ENCODED');
    const checksum = text('CHECKSUM');
    const signature = text('SIGNATURE');
    const lines: ReceivedNotificationLine[] = parseNotification(encoded);
    const checksumValid = account ? checksumMatches(account.secret, encoded, checksum) : false;
    const received: ReceivedNotification = {
      min,
      at: Date.now(),
      encoded,
      checksum,
      signature,
      checksumValid,
      signatureValid: await signatureValid(encoded, signature),
      lines,
      httpStatus: 200,
      reply: '',
    };
    notifications.push(received);
    const answer = (status: number, reply: string) => {
      received.httpStatus = status;
      received.reply = reply;
      return c.body(reply, status as 200, { 'content-type': 'text/plain' });
    };

    const down = downScripts.get(min);
    if (down && down.length > 0) return answer(down.shift()!, 'down');
    if (!account) return answer(404, 'ERR=unknown merchant\n');
    // As ePay's sample receiver: a packet that fails its checks is refused as a whole.
    if (!checksumValid) return answer(200, 'ERR=Not valid CHECKSUM\n');
    if (!received.signatureValid) return answer(200, 'ERR=Not valid SIGNATURE\n');

    const replyLines: string[] = [];
    for (const line of lines) {
      const key = `${line.invoice}:${line.status}`;
      let reply: NotificationAnswer | undefined = account.finalAnswers.get(key);
      if (!reply) {
        const script = notificationScripts.get(`${min}:${line.invoice}`);
        reply = script && script.length > 1 ? script.shift()! : (script?.[0] ?? 'OK');
        if (reply === 'OK' || reply === 'NO') account.finalAnswers.set(key, reply);
      }
      if (reply === 'OMIT') continue;
      replyLines.push(
        account.replyForm === 'short'
          ? `${line.invoice}=${reply}`
          : `INVOICE=${line.invoice}:STATUS=${reply}`,
      );
    }
    return answer(200, `${replyLines.join('\n')}\n`);
  });

  // The merchant's side of the story, for people trying the sandbox (the gateway's side is
  // GET /collect/notifications). A simulated party: the MIN is the only key, as for PUT /merchants.
  app.get('/:min/notifications', (c) => {
    const min = c.req.param('min');
    if (!accounts.has(min)) return c.json({ error: 'unknown merchant' }, 404);
    const invoice = c.req.query('invoice');
    const received = notifications
      .filter((post) => post.min === min)
      .filter((post) => invoice === undefined || post.lines.some((line) => line.invoice === invoice))
      .slice(-RECEIVED_SHOWN);
    return c.json({
      min,
      notifications: received.map((post) => ({
        receivedAt: new Date(post.at).toISOString(),
        checksumValid: post.checksumValid,
        signatureValid: post.signatureValid,
        lines: post.lines,
        httpStatus: post.httpStatus,
        reply: post.reply,
      })),
    });
  });

  app.get('/:min/billing/pay/:phase{init|confirm}', (c) => {
    const min = c.req.param('min');
    const phase = c.req.param('phase') as 'init' | 'confirm';
    const params = c.req.query();
    const account = accounts.get(min);
    const checksumValid =
      account !== undefined &&
      params.MERCHANTID === min &&
      sameHex(hmacSha1(account.secret, billingChecksumInput(params)), params.CHECKSUM ?? '');
    const call: BillingCall = { min, phase, at: Date.now(), params, checksumValid, code: '96' };
    billingCalls.push(call);
    const reply = (code: BillingAnswer, fields: Record<string, string | number | undefined> = {}) => {
      call.code = code;
      return c.json({ STATUS: code, IDN: params.IDN, ...fields }, 200);
    };

    const scripted = billingScripts.get(`${min}:${params.IDN}:${phase}`)?.shift();
    if (typeof scripted === 'number') {
      call.code = `HTTP ${scripted}`;
      return c.text('unavailable', scripted as 500);
    }
    if (!account || !checksumValid) return reply('93');
    const customer = account.customers.get(params.IDN ?? '');
    const describe = (found: BillingCustomer) => ({
      AMOUNT: found.amountMinor,
      SHORTDESC: found.shortDesc,
      VALIDTO: '20991231',
      INVOICES: found.invoices,
    });
    if (scripted !== undefined) {
      return reply(scripted, scripted === '00' && customer ? describe(customer) : {});
    }
    if (!customer) return reply('14');
    if (params.TID && account.confirmedTids.has(params.TID)) return reply('94', describe(customer));
    if (customer.paid || customer.amountMinor === 0) return reply('62');
    if (params.TOTAL !== undefined && Number(params.TOTAL) !== customer.amountMinor) return reply('13');
    if (phase === 'confirm') {
      if (!params.TID || !/^\d{14}$/.test(params.DATE ?? '')) return reply('96');
      customer.paid = true;
      account.confirmedTids.add(params.TID);
    }
    return reply('00', describe(customer));
  });

  app.notFound((c) => c.text('not found', 404));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () =>
      resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;

  return {
    url,
    port,
    /** Every notification POST received, in order. */
    notifications,
    /** Every /pay/init and /pay/confirm call received, in order. */
    billingCalls,
    /** Hosts a merchant (its secret is the one the gateway issued); returns its URLs. */
    register(input: { min: string; secret: string; billingIdnPrefix?: string | undefined }) {
      register(input);
      return { notifyUrl: `${url}/${input.min}/notify`, billingUrl: `${url}/${input.min}/billing` };
    },
    /** Where the gateway publishes its notification key (SIGNATUREs are verified with it). */
    trustGateway(keyUrl: string) {
      publicKeyUrl = keyUrl;
      publicKeyPem = undefined;
    },
    /** Answers for an invoice's next notifications, in order; the last one is repeated. */
    scriptNotification(min: string, invoice: string, answers: NotificationAnswer[]) {
      notificationScripts.set(`${min}:${invoice}`, [...answers]);
    },
    /** The next notification POSTs to this merchant are answered with these HTTP statuses. */
    goDown(min: string, statuses: number[]) {
      downScripts.set(min, [...statuses]);
    },
    /** Reply lines in the short `<n>=<STATUS>` form instead of `INVOICE=<n>:STATUS=<STATUS>`. */
    useShortReplies(min: string, short = true) {
      const account = accounts.get(min);
      if (account) account.replyForm = short ? 'short' : 'long';
    },
    addCustomer(min: string, customer: BillingCustomer) {
      accounts.get(min)?.customers.set(customer.idn, { ...customer });
    },
    customer(min: string, idn: string): BillingCustomer | undefined {
      return accounts.get(min)?.customers.get(idn);
    },
    /** Codes (or HTTP statuses, as numbers) answered to the next calls of a phase for an IDN. */
    scriptBilling(min: string, idn: string, phase: 'init' | 'confirm', answers: (BillingAnswer | number)[]) {
      billingScripts.set(`${min}:${idn}:${phase}`, [...answers]);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

export type SandboxMerchant = Awaited<ReturnType<typeof startSandboxMerchant>>;
