import { computeChecksum } from '../domain/collect/checksum.ts';
import { encodePacket } from '../domain/collect/packet.ts';
import { formatExpTime } from '../domain/epay-time.ts';
import type { BenchContext } from './context.ts';
import { CONNECTIONS, type LoadResult, pause, runLoad } from './load.ts';

/** The merchants of the collect scenarios: sandbox merchants created through the stack's control server. */
export interface Merchant {
  min: string;
  secret: string;
}

export type RegistrationScript = 'reg_bill.cgi' | 'reg_vnbel.cgi';

let invoiceSequence = 0;
/** A fresh invoice number of this run. */
export const newBenchInvoice = () => `${Date.now()}${++invoiceSequence}`;

/** EXP_TIME a day ahead: obligations that stay open for the whole run. */
export const dayAhead = () => formatExpTime(new Date(Date.now() + 86_400_000));

/** The signed path (with query) of a merchant's registration, as its ePay client sends it. */
export function registrationPath(
  collectUrl: string,
  merchant: Merchant,
  script: RegistrationScript,
  fields: { AMOUNT: string; EXP_TIME: string; INVOICE?: string },
): string {
  const encoded = encodePacket({
    MIN: merchant.min,
    INVOICE: fields.INVOICE ?? newBenchInvoice(),
    AMOUNT: fields.AMOUNT,
    EXP_TIME: fields.EXP_TIME,
    ENCODING: 'utf-8',
  });
  const query = new URLSearchParams({
    ENCODED: encoded,
    CHECKSUM: computeChecksum(encoded, merchant.secret),
  });
  return `${new URL(`${collectUrl}/office/${script}`).pathname}?${query}`;
}

/** A registration's answer when it registered: `IDN=<10 digits>` first (a deposit slip adds lines). */
export const registeredIdn = (status: number, body: string) =>
  status === 200 ? /^IDN=(\d{10})(?:\n|$)/.exec(body)?.[1] : undefined;

export interface Registered {
  idn: string;
  invoice: string;
}

/**
 * Registers `count` obligations of `amount` for the merchant, CONNECTIONS at a time from this process
 * (set-up, not a measurement), and waits until their workflows' first tasks are done.
 */
export async function registerObligations(
  context: BenchContext,
  merchant: Merchant,
  script: RegistrationScript,
  count: number,
  amount: string,
): Promise<{ obligations: Registered[]; load: LoadResult }> {
  const obligations: Registered[] = [];
  const expTime = dayAhead();
  let progress = Date.now();
  const load = await runLoad(count, CONNECTIONS, async () => {
    const invoice = newBenchInvoice();
    const path = registrationPath(context.stack.collectUrl, merchant, script, {
      AMOUNT: amount,
      EXP_TIME: expTime,
      INVOICE: invoice,
    });
    const response = await fetch(`${context.stack.apiUrl}${path}`);
    const text = await response.text();
    const idn = registeredIdn(response.status, text);
    if (!idn) throw new Error(`${script}: ${response.status} ${text.slice(0, 200)}`);
    obligations.push({ idn, invoice });
    if (Date.now() - progress > 30_000) {
      progress = Date.now();
      console.log(`  (${obligations.length} of ${count} registered)`);
    }
  });
  if (load.firstFailure) console.log(`  first failure registering: ${load.firstFailure}`);
  await context.drain(`the ${obligations.length} registered obligations`);
  return { obligations, load };
}

export interface MerchantLine {
  invoice: string;
  status: string;
  at: number;
}

/** What the sandbox merchant received, read through the stack's control server. */
export const merchantNotifications = (context: BenchContext, merchant: Merchant) =>
  context.control<{ posts: number; failedVerification: number; lines: MerchantLine[] }>(
    'GET',
    `/merchant-notifications?mins=${merchant.min}`,
  );

/**
 * Resolves waiters as the sandbox merchant receives their invoice's notification: one poller reads
 * what the merchant received every `everyMs` (not one request per waiter).
 */
export function notificationWatcher(context: BenchContext, merchant: Merchant, everyMs = 250) {
  const waiting = new Map<string, (line: MerchantLine) => void>();
  const seen = new Map<string, MerchantLine>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const received = await merchantNotifications(context, merchant).catch(() => undefined);
      for (const line of received?.lines ?? []) {
        if (seen.has(line.invoice)) continue;
        seen.set(line.invoice, line);
        waiting.get(line.invoice)?.(line);
      }
      await pause(everyMs);
    }
  })();
  return {
    /** The invoice's first notification line, once the merchant received it. */
    notified(invoice: string, timeoutMs = 120_000): Promise<MerchantLine> {
      const already = seen.get(invoice);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(invoice);
          reject(new Error(`the merchant was not notified of ${invoice} within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        waiting.set(invoice, (line) => {
          clearTimeout(timer);
          waiting.delete(invoice);
          resolve(line);
        });
      });
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
