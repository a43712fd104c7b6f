import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';

/**
 * Issue 23, "submitted but not acknowledged": the worker (its own OS process) is SIGKILLed while the
 * SMSC holds the submit_sm_resp of every message it was handed — the carrier has the messages, the
 * platform has no carrier id recorded. A new worker takes over. This is SMPP's unavoidable window: the
 * platform cannot know the carrier accepted, so the retried hand-over (after the attempt's 30 s
 * startToCloseTimeout, hence the test's length) submits again. The test allows a second submission only
 * there (the first one never answered), counts and prints the doubles, and asserts nothing is lost:
 * every message ends with its receipt's status and its customer gets exactly one report. The receipts
 * of the unanswered first submissions still come (the SMSC delivered those messages) and are ignored.
 */

let platform: TestPlatform;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
});
afterAll(async () => {
  platform?.sandbox.smpp.holdSubmitResponses(false);
  await workers.killAll();
  await platform?.stop();
});

const api = messagingClient(() => platform);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The destinations, with the status their receipt gives (…0000: UNDELIV in the sandbox SMSC). */
const MESSAGES = [
  { to: '+359888126011', final: 'delivered' },
  { to: '+359888126012', final: 'delivered' },
  { to: '+359888126013', final: 'delivered' },
  { to: '+359888120000', final: 'undeliverable' },
] as const;

describe('a worker process killed while its submit_sm wait for their submit_sm_resp', () => {
  it('loses nothing, reports once, and submits twice only what the SMSC never answered', async () => {
    const receiver = await startReceiver();
    const smsc = platform.sandbox.smpp;
    const submissionsTo = (to: string) => smsc.submitted.filter((sms) => `+${sms.destination}` === to);
    try {
      const first = await workers.start();
      smsc.holdSubmitResponses(true);
      const ids = new Map<string, (typeof MESSAGES)[number]>();
      for (const message of MESSAGES) {
        const { status, json } = await api('POST', '/sms', {
          body: { to: message.to, from: '+359888000111', message: 'held at the SMSC', dlrUrl: receiver.url },
        });
        expect(status).toBe(202);
        ids.set(json.id as string, message);
      }

      // Every submit_sm is at the SMSC, none answered: the worker dies inside the window.
      await eventually(
        async () => (MESSAGES.every(({ to }) => submissionsTo(to).length === 1) ? true : undefined),
        20_000,
        'every submit_sm at the SMSC',
      );
      await first.kill();
      expect(first.child.signalCode).toBe('SIGKILL');
      await eventually(
        async () => (smsc.unanswered.length === MESSAGES.length ? true : undefined),
        5_000,
        'the killed session to close',
      );
      smsc.holdSubmitResponses(false);

      await workers.start();
      await eventually(
        async () => {
          const rows = await platform.db
            .select({ id: messagingMessages.id, status: messagingMessages.status })
            .from(messagingMessages)
            .where(inArray(messagingMessages.id, [...ids.keys()]));
          return rows.every((row) => row.status === ids.get(row.id)?.final) ? true : undefined;
        },
        90_000,
        'every message to end with its receipt status',
      );
      await eventually(
        async () => (receiver.requests.length >= MESSAGES.length ? true : undefined),
        15_000,
        'the reports',
      );
      await pause(1500); // a duplicate report would follow within this

      // Exactly one report per message, with the status its receipt gave.
      const reports = receiver.requests.map((request) => JSON.parse(request.body).data);
      expect(reports).toHaveLength(MESSAGES.length);
      for (const [id, message] of ids) {
        expect(reports.filter((data) => data.id === id)).toEqual([
          expect.objectContaining({ id, status: message.final, to: message.to }),
        ]);
        const { json } = await api('GET', `/webhooks/deliveries?subjectId=${id}`);
        expect(json.items).toHaveLength(1);
      }

      // Once or twice at the carrier; twice only when the first submit_sm was never answered, and the
      // message carries the id of the answered one (which its receipt matched).
      const rows = await platform.db
        .select({ id: messagingMessages.id, carrierMessageId: messagingMessages.carrierMessageId })
        .from(messagingMessages)
        .where(inArray(messagingMessages.id, [...ids.keys()]));
      let doubles = 0;
      for (const row of rows) {
        const submissions = submissionsTo(ids.get(row.id)!.to);
        expect(submissions.length).toBeGreaterThanOrEqual(1);
        expect(submissions.length).toBeLessThanOrEqual(2);
        const last = submissions.at(-1)!;
        expect(smsc.unanswered).not.toContain(last);
        expect(row.carrierMessageId).toBe(last.messageId);
        if (submissions.length === 2) {
          doubles += 1;
          expect(smsc.unanswered).toContain(submissions[0]);
        }
      }
      console.log(
        `submitted-but-not-acknowledged crash: ${doubles} of ${MESSAGES.length} messages submitted twice ` +
          `(all ${smsc.unanswered.length} unanswered at the kill), 0 lost, ${reports.length} reports`,
      );
    } finally {
      smsc.holdSubmitResponses(false);
      await receiver.stop();
      await workers.killAll();
    }
  }, 150_000);
});
