import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type WorkerProcess, workerProcesses } from '../support/worker-process.ts';

/**
 * Issue 37 item 1, decision 0084: the stack (an API process and a worker process) SIGKILLed in the
 * middle of a burst of 32 senders, against an independent carrier (test/support/smpp-carrier-process.ts,
 * its own OS process, answering each submit_sm after 40 ms so that a window is always unanswered), then
 * started again. The carrier's own log is the judge: every written message reaches the carrier once,
 * except the ones in doubt (on the wire, unanswered at the kill), which the policy sends again (ordinary
 * messages: at most twice) or ends `unknown` (one-time codes: never twice); none lost; every message
 * ends in a final status with one report (no receipt: `unknown` after SMS_RECEIPT_TIMEOUT).
 */

const SENDERS = 32;
const MESSAGES = 320;
/** The kill lands once the carrier has logged this many submit_sm: mid-burst. */
const KILL_AFTER = 100;

let platform: TestPlatform;
let carrier: ChildProcess;
const folder = mkdtempSync(path.join(tmpdir(), 'carrier-crash-'));
const carrierLog = path.join(folder, 'carrier.jsonl');
const workers = workerProcesses(() => platform.env);
const apis = workerProcesses(() => platform.env, 'api');

/** The independent carrier, as its own process; resolves with its port. */
async function startCarrier(): Promise<number> {
  carrier = spawn(process.execPath, ['--import', 'tsx', 'test/support/smpp-carrier-process.ts', carrierLog], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  carrier.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return eventually(
    async () => {
      const port = /"listening":(\d+)/.exec(out)?.[1];
      return port ? Number(port) : undefined;
    },
    30_000,
    'the carrier process to listen',
  );
}

/** Every submit_sm the carrier logged: its destination and text. */
const carrierSubmissions = () =>
  (existsSync(carrierLog) ? readFileSync(carrierLog, 'utf8') : '')
    .split('\n')
    .filter((line) => line.includes('"submit_sm"'))
    .map((line) => JSON.parse(line) as { destination: string; text: string });

beforeAll(async () => {
  const port = await startCarrier();
  platform = await startTestPlatform({
    worker: 'none',
    env: {
      SMPP_URL: `smpp://127.0.0.1:${port}`,
      SMS_RECEIPT_TIMEOUT: '15s',
      MESSAGING_HANDOVER_LEASE: '2s',
    },
  });
}, 60_000);

afterAll(async () => {
  await apis.killAll();
  await workers.killAll();
  await platform?.stop();
  carrier?.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

/** Message i: a destination of its own; every other one a one-time code; …99 never gets a receipt. */
const destination = (i: number) => `+359888${200_000 + i}`;
const isCode = (i: number) => i % 2 === 1;

/** What the workers logged in doubt (activities/messaging/sms-batch.ts): resubmitted or ended unknown. */
function inDoubt(processes: WorkerProcess[]) {
  const resubmitted = new Set<string>();
  const unknown = new Set<string>();
  for (const line of processes.flatMap((each) => each.output)) {
    if (!line.includes('submit_sm in doubt')) continue;
    const entry = JSON.parse(line) as { resubmitted: string[]; unknown: string[] };
    for (const id of entry.resubmitted) resubmitted.add(id);
    for (const id of entry.unknown) unknown.add(id);
  }
  return { resubmitted, unknown };
}

describe('the stack killed mid-burst, against an independent SMPP carrier', () => {
  it('submits every message once but the ones in doubt, as the policy says; loses none; ends each', async () => {
    const receiver = await startReceiver();
    try {
      const started = [await apis.start(), await workers.start()];
      // Where the senders send: the API process, or (while it is down) the promise of the next one.
      let apiUrl: Promise<string> = Promise.resolve(started[0]!.url!);
      let restarted: (url: string) => void = () => {};
      const answered = new Map<string, number>();
      let next = 0;
      let killing = false;
      const sender = async () => {
        while (next < MESSAGES) {
          const i = next++;
          const body = {
            to: destination(i),
            from: '+359888000111',
            message: isCode(i) ? `Your code is ${100_000 + i}` : `Campaign text ${i}`,
            dlrUrl: receiver.url,
            ...(isCode(i) ? { containsCode: true } : {}),
          };
          try {
            const response = await fetch(`${await apiUrl}/messaging/sms?at=${platform.token}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            const json = (await response.json()) as { id?: string };
            if (response.status !== 202 || !json.id)
              throw new Error(`POST /sms answered ${response.status}: ${JSON.stringify(json)}`);
            answered.set(json.id, i);
          } catch (error) {
            // Cut by the kill: this one may or may not have been written; the next waits for the new API.
            if (!killing) throw error;
          }
        }
      };
      const sending = Promise.all(Array.from({ length: SENDERS }, sender));
      sending.catch(() => {}); // awaited below; a failure before that must not go unhandled

      await eventually(
        async () => (carrierSubmissions().length >= KILL_AFTER ? true : undefined),
        60_000,
        `${KILL_AFTER} submit_sm at the carrier`,
      );
      killing = true;
      apiUrl = new Promise((resolve) => {
        restarted = resolve;
      });
      await Promise.all(started.map((each) => each.kill()));
      const atKill = { submitted: carrierSubmissions().length, answered: answered.size };
      started.push(await apis.start(), await workers.start());
      restarted(started[2]!.url!);
      await sending;

      const rowsOf = () =>
        platform.db
          .select({
            id: messagingMessages.id,
            to: messagingMessages.to,
            status: messagingMessages.status,
            containsCode: messagingMessages.containsCode,
          })
          .from(messagingMessages)
          .where(eq(messagingMessages.accountId, platform.accountId));
      /** Waits until no written message (answered or not) has one of `statuses`. */
      const noneIn = async (statuses: string[], what: string) => {
        let open = '';
        return eventually(
          async () => {
            const all = await rowsOf();
            const left = all.filter((row) => statuses.includes(row.status)).map((row) => row.status);
            open = `${left.length} (${[...new Set(left)].join(', ')})`;
            return left.length === 0 ? all : undefined;
          },
          90_000,
          what,
        ).catch((error: Error) => {
          throw new Error(`${error.message}; still open: ${open}`);
        });
      };

      // Every message handed to the carrier (or ended) after the restart: the carrier's log is complete.
      const handed = await noneIn(['accepted', 'scheduled', 'sending'], 'every message past its hand-over');
      for (const id of answered.keys()) expect(handed.map((row) => row.id)).toContain(id);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // a late second submit_sm would show
      const counts = new Map<string, number>();
      for (const sms of carrierSubmissions()) {
        const to = `+${sms.destination}`;
        counts.set(to, (counts.get(to) ?? 0) + 1);
      }
      const doubt = inDoubt(started);
      const twice = handed.filter((row) => (counts.get(row.to) ?? 0) >= 2);
      console.log(
        `carrier crash: ${handed.length} written (${answered.size} answered; ${atKill.answered} before the kill, ` +
          `which came after ${atKill.submitted} submit_sm); ${[...counts.values()].reduce((a, b) => a + b, 0)} ` +
          `submit_sm for ${counts.size} messages; ${twice.length} submitted twice ` +
          `(${twice.filter((row) => row.containsCode).length} one-time codes); in doubt ` +
          `${doubt.resubmitted.size + doubt.unknown.size} (${doubt.resubmitted.size} resubmitted, ` +
          `${doubt.unknown.size} ended unknown)`,
      );
      for (const row of handed) {
        const submitted = counts.get(row.to) ?? 0;
        // Twice only when in doubt and the policy sends it again (ordinary messages); a code never.
        if (submitted >= 2) {
          expect(row.containsCode, `${row.to}: a one-time code submitted ${submitted} times`).toBe(false);
          expect(doubt.resubmitted.has(row.id), `${row.to} submitted ${submitted} times, not in doubt`).toBe(
            true,
          );
        }
        expect(submitted, row.to).toBeLessThanOrEqual(2);
      }

      // Every message ends in a final status; none lost: each reached the carrier, but an in-doubt one
      // that ended unknown (it may never have left).
      const rows = await noneIn(['accepted', 'scheduled', 'sending', 'submitted'], 'every final status');
      const statuses: Record<string, number> = {};
      for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
      console.log(`carrier crash: final statuses ${JSON.stringify(statuses)}`);
      for (const row of rows) {
        if (doubt.unknown.has(row.id)) expect(row.status, row.id).toBe('unknown');
        else {
          expect(counts.get(row.to) ?? 0, `${row.to} at the carrier`).toBeGreaterThanOrEqual(1);
          // No receipt ever comes for …99: unknown after SMS_RECEIPT_TIMEOUT (decision 0084, amended).
          expect(row.status, row.to).toBe(row.to.endsWith('99') ? 'unknown' : 'delivered');
        }
      }

      // One report per message with its final status: a single event (webhook-id), which a report
      // burst cut by the kill may have POSTed twice (at least once; the receiver drops the repeat).
      await eventually(
        async () => (receiver.requests.length >= rows.length ? true : undefined),
        30_000,
        'a report per message',
      );
      await new Promise((resolve) => setTimeout(resolve, 1500)); // a second report would follow within this
      const reports = receiver.requests.map((request) => ({
        event: String(request.headers['webhook-id']),
        ...(JSON.parse(request.body).data as { id: string; status: string }),
      }));
      for (const row of rows) {
        const own = reports.filter((report) => report.id === row.id);
        expect(new Set(own.map((report) => report.event)).size, `${row.to}: report events`).toBe(1);
        expect(new Set(own.map((report) => report.status)), row.to).toEqual(new Set([row.status]));
      }
      console.log(
        `carrier crash: ${rows.length} reports, ${reports.length - rows.length} POSTed again (same webhook-id)`,
      );
    } finally {
      await receiver.stop();
    }
  }, 180_000);
});
