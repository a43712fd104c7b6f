import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';

/**
 * Durability against a real crash: the worker runs as its own OS process (`cmd/worker-main.ts`,
 * as `npm run worker` runs it), is killed with SIGKILL mid-flow — no shutdown, no unbind, sockets
 * dropped by the kernel — and a new process takes over. The carrier must get the message once, and
 * the customer its delivery report once.
 *
 * Kill points are chosen where the dead worker holds no running activity (the message waits for its
 * receipt; the webhook waits between attempts): an activity lost mid-run is only retried after its
 * startToCloseTimeout (30 s for the carrier hand-over), which would make this test slow, not stronger.
 * Even so, each takeover costs about 10 s: the first workflow task after the crash goes to the dead
 * worker's sticky queue and moves to the shared task queue only when its schedule-to-start timeout
 * (the SDK's stickyQueueScheduleToStartTimeout, 10 s) passes — what a real crash costs too.
 */

// Leaves room, even on a busy machine, to kill the worker before the SMSC sends the receipt.
const RECEIPT_DELAY_MS = 2500;

let platform: TestPlatform;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: 'none',
    receiptDelayMs: RECEIPT_DELAY_MS,
    // Long enough between attempts that the worker can be killed while the delivery waits.
    env: { WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s,1s,1s' },
  });
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

const api = messagingClient(() => platform);

async function messageStatus(id: string): Promise<string> {
  return (await api('GET', `/sms/${id}`)).json.status as string;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

async function history(workflowId: string): Promise<HistoryEvent[]> {
  return (await platform.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/**
 * The message's workflow (its batch, decision 0074) has recorded the carrier hand-over and moved on to
 * wait for the receipt: the workflow task after the hand-over completed.
 */
async function waitingForReceipt(messageId: string): Promise<boolean> {
  const workflowId = (await api('GET', `/sms/${messageId}`)).json.process as string | null;
  if (!workflowId) return false;
  const events = await history(workflowId);
  const submitScheduled = events.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'submitMessageBatch',
  )?.eventId;
  const completed = events.findIndex(
    (event) =>
      submitScheduled != null &&
      String(event.activityTaskCompletedEventAttributes?.scheduledEventId) === String(submitScheduled),
  );
  return (
    completed >= 0 && events.slice(completed).some((event) => event.workflowTaskCompletedEventAttributes)
  );
}

async function deliveriesOf(messageId: string) {
  const { json } = await api('GET', `/webhooks/deliveries?subjectId=${messageId}`);
  return json.items as { id: string; status: string; attemptCount: number }[];
}

async function attemptsOf(deliveryId: string) {
  const { json } = await api('GET', `/webhooks/deliveries/${deliveryId}`);
  return json.attempts as { attempt: number; statusCode: number | null }[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const submissionsTo = (destination: string) =>
  platform.sandbox.smpp.submitted.filter((sms) => sms.destination === destination);

describe('a worker process killed with SIGKILL', () => {
  it('while the delivery receipt is due: submitted once, delivered once, reported once', async () => {
    const receiver = await startReceiver();
    try {
      const first = await workers.start();
      const { status, json } = await api('POST', '/sms', {
        body: {
          to: '+359888124001',
          from: '+359888000111',
          message: 'survive a crash',
          dlrUrl: receiver.url,
        },
      });
      expect(status).toBe(202);
      const id = json.id as string;

      await eventually(async () => ((await messageStatus(id)) === 'submitted' ? true : undefined));
      await eventually(async () => ((await waitingForReceipt(id)) ? true : undefined));
      const submittedAt = submissionsTo('359888124001')[0]?.at.getTime();
      expect(submittedAt).toBeDefined();
      await first.kill();
      expect(first.child.signalCode).toBe('SIGKILL');
      // The crash came before the receipt: the SMSC sends it while no worker is bound, so it is kept.
      expect(Date.now() - submittedAt!).toBeLessThan(RECEIPT_DELAY_MS);
      await pause(submittedAt! + RECEIPT_DELAY_MS + 300 - Date.now());
      expect(await messageStatus(id)).toBe('submitted');

      await workers.start();
      await eventually(
        async () => ((await messageStatus(id)) === 'delivered' ? true : undefined),
        30_000,
        'the message to be delivered',
      );
      await eventually(async () => (receiver.requests.length >= 1 ? true : undefined), 15_000, 'the report');
      await pause(1500); // a duplicate report would follow within this
      expect(submissionsTo('359888124001')).toHaveLength(1);
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
        type: 'message.status',
        data: { id, status: 'delivered', to: '+359888124001' },
      });
      const deliveries = await deliveriesOf(id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ status: 'delivered', attemptCount: 1 });
    } finally {
      await receiver.stop();
      await workers.killAll();
    }
  });

  it('while the delivery report is being retried: one successful delivery after the restart', async () => {
    let receiverUp = false;
    const receiver = await startReceiver(() => ({ status: receiverUp ? 200 : 503 }));
    try {
      const first = await workers.start();
      const { json } = await api('POST', '/sms', {
        body: {
          to: '+359888124002',
          from: '+359888000111',
          message: 'report after a crash',
          dlrUrl: receiver.url,
        },
      });
      const id = json.id as string;

      // Kill after the second refused attempt is recorded, while the delivery sleeps before the third.
      const delivery = await eventually(
        async () => {
          const [found] = await deliveriesOf(id);
          if (!found || found.attemptCount < 2) return undefined;
          const events = await history(`webhook-${found.id}`);
          return events.at(-1)?.timerStartedEventAttributes ? found : undefined;
        },
        20_000,
        'the second refused attempt',
      );
      await first.kill();
      expect(first.child.signalCode).toBe('SIGKILL');
      receiverUp = true;
      const refusedBeforeCrash = receiver.requests.length;
      expect(refusedBeforeCrash).toBe(2);
      await pause(1500); // past the retry delay: no attempt is made while no worker runs
      expect(receiver.requests).toHaveLength(refusedBeforeCrash);

      await workers.start();
      await eventually(
        async () => ((await deliveriesOf(id))[0]?.status === 'delivered' ? true : undefined),
        30_000,
        'the report to be delivered',
      );
      await pause(1500); // a duplicate attempt would follow within this
      expect(receiver.requests).toHaveLength(3);
      const ids = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
      expect(ids.size).toBe(1);
      expect(JSON.parse(receiver.requests[2]!.body)).toMatchObject({ data: { id, status: 'delivered' } });
      expect(await attemptsOf(delivery.id)).toMatchObject([
        { attempt: 1, statusCode: 503 },
        { attempt: 2, statusCode: 503 },
        { attempt: 3, statusCode: 200 },
      ]);
      expect(await deliveriesOf(id)).toHaveLength(1);
      expect(await messageStatus(id)).toBe('delivered');
      expect(submissionsTo('359888124002')).toHaveLength(1);
    } finally {
      await receiver.stop();
      await workers.killAll();
    }
  });
});
