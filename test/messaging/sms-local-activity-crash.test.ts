import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { lineOf, workerProcesses } from '../support/worker-process.ts';

/**
 * The crash window of decision 0035: the message's final status is written by a local activity, which
 * the workflow records only when the workflow task running it completes. A worker SIGKILLed after the
 * write and before that (test/support/crash-window-worker.ts stops there) leaves the status written
 * and nothing recorded; the next worker runs the local activity again. The customer still gets one
 * delivery report, the carrier the message once, and the history one record of the outcome.
 */

let platform: TestPlatform;
const workers = workerProcesses(() => platform.env);
/** Workers that stop right after a final status is written (decisions 0035, 0074). */
const crashWindowWorkers = workerProcesses(() => platform.env, 'crashWindow');

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none', receiptDelayMs: 100 });
});
afterAll(async () => {
  await crashWindowWorkers.killAll();
  await workers.killAll();
  await platform?.stop();
});

const api = messagingClient(() => platform);

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
const history = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await platform.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
const localActivityMarkers = (events: HistoryEvent[]) =>
  events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');

const startCrashWorker = async () => {
  const worker = await crashWindowWorkers.start({
    CRASH_WINDOW_ACTIVITIES: 'recordMessageOutcome,recordMessageOutcomes',
  });
  return {
    child: worker.child,
    written: (id: string) =>
      lineOf(
        worker,
        (line) => line.startsWith('CRASH WINDOW ') && line.includes(id),
        'the final status to be written',
      ),
  };
};

describe('a worker killed between the local write of the final status and its record', () => {
  it('writes the status again on the next worker: one report, one submission, one recorded outcome', async () => {
    const receiver = await startReceiver();
    try {
      const crashing = await startCrashWorker();
      const { status, json } = await api('POST', '/sms', {
        body: { to: '+359888125001', from: '+359888000111', message: 'crash window', dlrUrl: receiver.url },
      });
      expect(status).toBe(202);
      const id = json.id as string;

      await crashing.written(id);
      // Inside the window: the read model has the outcome, the workflow has not recorded it.
      expect((await api('GET', `/sms/${id}`)).json.status).toBe('delivered');
      // The workflow the message names: its batch (decision 0074).
      const workflowId = (await api('GET', `/sms/${id}`)).json.process as string;
      expect(localActivityMarkers(await history(workflowId))).toHaveLength(0);
      crashing.child.kill('SIGKILL');
      await new Promise((resolve) => crashing.child.once('exit', resolve));
      expect(receiver.requests).toHaveLength(0);

      await workers.start();
      await eventually(async () => (receiver.requests.length >= 1 ? true : undefined), 60_000, 'the report');
      await new Promise((resolve) => setTimeout(resolve, 1500)); // a duplicate report would follow within this
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
        type: 'message.status',
        data: { id, status: 'delivered' },
      });
      expect(
        platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888125001'),
      ).toHaveLength(1);
      expect((await api('GET', `/sms/${id}`)).json.status).toBe('delivered');
      const events = await history(workflowId);
      expect(localActivityMarkers(events)).toHaveLength(1);
      // The shorter path: `sending` is marked by the carrier hand-over, not by an activity of its own.
      const activityTypes = events
        .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
        .filter(Boolean);
      expect(activityTypes).not.toContain('markMessageStatus');
      expect(activityTypes).not.toContain('recordMessageOutcome');
      expect(activityTypes).not.toContain('recordMessageOutcomes');
    } finally {
      await receiver.stop();
    }
  });
});
