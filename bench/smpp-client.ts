import smpp, { type Pdu, type Session } from 'smpp';
import { deliveryReceiptFromSmpp } from '../domain/messaging/smpp-receipt.ts';

/**
 * Baseline (d), a process of its own (bench/baselines.ts runs it, as the load generator is one): a bare
 * SMPP client on the stack's sandbox SMSC, what a gateway could do at best on that carrier. It binds a
 * transceiver with the platform's account, submits BENCH_SMPP_MESSAGES messages keeping
 * BENCH_SMPP_WINDOW `submit_sm` outstanding, acknowledges every `deliver_sm` and counts the receipts of
 * its messages, until all have arrived. A warm-up of a few windows goes first, unmeasured. No database,
 * no workflow, no report to a dlrUrl: the carrier's own round trips and receipt delay only.
 * Prints `RESULT <json>` (SmppBaselineResult) and exits.
 */
export interface SmppBaselineResult {
  messages: number;
  window: number;
  /** submit_sm answered with a message id. */
  submitted: number;
  /** submit_sm answered with an error, or not at all. */
  failed: number;
  receipts: number;
  /** From the first submit_sm to the last submit_sm_resp. */
  submitSeconds: number;
  /** From the first submit_sm to the last receipt. */
  seconds: number;
  /** Per message, from its submit_sm to its receipt. */
  p50: number;
  p99: number;
  /** This process's CPU (user + system) over the measured run. */
  cpuSeconds: number;
}

const url = process.env.BENCH_SMPP_URL;
const systemId = process.env.BENCH_SMPP_SYSTEM_ID;
const password = process.env.BENCH_SMPP_PASSWORD;
if (!url || !systemId || !password) throw new Error('BENCH_SMPP_URL, _SYSTEM_ID and _PASSWORD are required');
const messages = Number(process.env.BENCH_SMPP_MESSAGES ?? 2000);
const window = Number(process.env.BENCH_SMPP_WINDOW ?? 32);
const RECEIPT_TIMEOUT_MS = 120_000;
const ESM_CLASS_RECEIPT = 0x04;

const session = await new Promise<Session>((resolve, reject) => {
  const s = smpp.connect({ url, auto_enquire_link_period: 30_000 }, () => {
    s.bind_transceiver({ system_id: systemId, password }, (pdu) => {
      if (pdu.command_status === 0) resolve(s);
      else reject(new Error(`bind refused: ${pdu.command_status}`));
    });
  });
  s.on('error', reject);
});

/** Receipts by the SMSC's message id: when each arrived (a receipt may come before its submit_sm_resp is read). */
const receivedAt = new Map<string, number>();
/** The current run's submissions by the SMSC's id, and how many of them have their receipt. */
let sentAt = new Map<string, number>();
let matched = 0;
let onReceipt: (() => void) | undefined;
session.on('pdu', (pdu: Pdu) => {
  if (pdu.command === 'deliver_sm') {
    if (((pdu.esm_class ?? 0) & ESM_CLASS_RECEIPT) !== 0) {
      const text = pdu.short_message;
      const body = !text ? '' : Buffer.isBuffer(text) ? text.toString('latin1') : String(text.message);
      const id = deliveryReceiptFromSmpp(body, pdu.receipted_message_id)?.carrierMessageId;
      if (id && !receivedAt.has(id)) {
        receivedAt.set(id, performance.now());
        if (sentAt.has(id)) matched += 1;
      }
      onReceipt?.();
    }
    session.send(pdu.response());
  } else if (pdu.command === 'enquire_link') session.send(pdu.response());
});

const submitOne = (sequence: number) =>
  new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 30_000);
    const sent = session.submit_sm(
      {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: '359888000111',
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: '359881234567',
        registered_delivery: 1,
        short_message: `Bench message ${sequence}`,
      },
      (response) => {
        clearTimeout(timer);
        resolve(response.command_status === 0 ? response.message_id : undefined);
      },
    );
    if (!sent) {
      clearTimeout(timer);
      resolve(undefined);
    }
  });

/** N messages, `window` outstanding submit_sm at most; answers when every receipt came (or the timeout). */
async function run(count: number): Promise<Omit<SmppBaselineResult, 'messages' | 'window' | 'cpuSeconds'>> {
  sentAt = new Map<string, number>();
  matched = 0;
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const sequence = next++;
      const at = performance.now();
      const id = await submitOne(sequence);
      if (!id) failed += 1;
      else {
        sentAt.set(id, at);
        if (receivedAt.has(id)) matched += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, count) }, lane));
  const submitSeconds = (performance.now() - started) / 1000;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, RECEIPT_TIMEOUT_MS);
    const check = () => {
      if (matched < sentAt.size) return;
      clearTimeout(timer);
      onReceipt = undefined;
      resolve();
    };
    onReceipt = check;
    check();
  });
  const latencies = [...sentAt].flatMap(([id, at]) => {
    const done = receivedAt.get(id);
    return done === undefined ? [] : [done - at];
  });
  latencies.sort((a, b) => a - b);
  let last = started;
  for (const id of sentAt.keys()) last = Math.max(last, receivedAt.get(id) ?? started);
  const percentile = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? Number.NaN;
  return {
    submitted: sentAt.size,
    failed,
    receipts: latencies.length,
    submitSeconds,
    seconds: (last - started) / 1000,
    p50: percentile(0.5),
    p99: percentile(0.99),
  };
}

await run(window * 4);
receivedAt.clear();
const cpuBefore = process.cpuUsage();
const measured = await run(messages);
const cpu = process.cpuUsage(cpuBefore);
const result: SmppBaselineResult = {
  messages,
  window,
  ...measured,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
};
await new Promise<void>((resolve) => {
  const timer = setTimeout(() => session.destroy(), 1000);
  session.once('close', () => {
    clearTimeout(timer);
    resolve();
  });
  if (!session.unbind({}, () => session.close())) session.destroy();
});
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
