import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessageBatchInput, messageBatchWorkflowId } from '../../domain/messaging/processes.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * SMS handed over in batches (decision 0074): an account's SMS accepted together share one workflow,
 * which each message names as its `process`; and a message handed over in more than one batch (a
 * hand-over repeated after a crash, with other companions) is claimed by one of them only: submitted
 * once, reported once, followed by the batch that claimed it.
 */

let platform: TestPlatform;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
});
afterAll(async () => {
  await platform?.stop();
});

const submissionsTo = (to: string) =>
  platform.sandbox.smpp.submitted.filter((sms) => `+${sms.destination}` === to);

async function finished(ids: string[]) {
  return eventually(
    async () => {
      const views = await Promise.all(ids.map(async (id) => (await api('GET', `/sms/${id}`)).json));
      return views.every((view) => view.status === 'delivered') ? views : undefined;
    },
    60_000,
    'every message delivered',
  );
}

describe('SMS handed over in batches', () => {
  it('gives messages accepted together one workflow, which each names as its process', async () => {
    await platform.startWorker();
    const receiver = await startReceiver();
    try {
      const sent = await Promise.all(
        ['+359888127001', '+359888127002', '+359888127003'].map((to) =>
          api('POST', '/sms', {
            body: { to, from: '+359888000111', message: 'together', dlrUrl: receiver.url },
          }),
        ),
      );
      const ids = sent.map(({ json }) => json.id as string);
      const views = await finished(ids);
      const processes = new Set(views.map((view) => view.process));
      expect(processes.size).toBe(1);
      const [process] = processes;
      expect(process).toMatch(/^sms-batch-/);
      const handle = platform.client.workflow.getHandle(process as string);
      expect(await handle.result()).toMatchObject({ delivered: 3 });
      const description = await handle.describe();
      expect(description.type).toBe('messageBatch');
      expect(description.typedSearchAttributes.get(OwnerId)).toBe(platform.accountId);
      await eventually(async () => (receiver.requests.length >= 3 ? true : undefined), 15_000, 'the reports');
      const reported = receiver.requests.map((request) => JSON.parse(request.body).data);
      expect(reported.map((data) => data.id).sort()).toEqual([...ids].sort());
      expect(reported.every((data) => data.status === 'delivered' && data.channel === 'sms')).toBe(true);
    } finally {
      await receiver.stop();
      await platform.stopWorker();
    }
  });

  it('claims a message handed over in several batches for one of them: submitted once, reported once', async () => {
    const receiver = await startReceiver();
    try {
      const destinations = ['+359888127011', '+359888127012', '+359888127013'];
      // No worker yet: the API's own batch waits, and two more batches are started over the same
      // messages with other companions, as a repeated hand-over after a crash would.
      const sent = [];
      for (const to of destinations)
        sent.push(
          await api('POST', '/sms', {
            body: { to, from: '+359888000111', message: 'once', dlrUrl: receiver.url },
          }),
        );
      const messages = sent.map(({ json }, index) => ({
        messageId: json.id as string,
        accountId: platform.accountId,
        to: destinations[index]!,
        from: '+359888000111',
        message: 'once',
        parts: 1,
        dlrUrl: receiver.url,
      }));
      const [first, second, third] = messages;
      const repeated = [
        { batchId: `repeat-a-${first!.messageId}`, messages: [first!, second!] },
        { batchId: `repeat-b-${first!.messageId}`, messages: [first!, third!] },
      ];
      const starts = repeated.map(({ batchId, messages: batch }) => {
        const input: MessageBatchInput = {
          batchId,
          messages: batch,
          receiptTimeoutMs: platform.config.SMS_RECEIPT_TIMEOUT,
          submitTimeoutMs: platform.config.SMS_SUBMIT_TIMEOUT,
        };
        return platform.client.workflow.start('messageBatch', {
          taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
          workflowId: messageBatchWorkflowId(batchId),
          args: [input],
          typedSearchAttributes: [
            { key: PlatformService, value: 'messaging' },
            { key: OwnerId, value: platform.accountId },
          ],
        });
      });
      const handles = await Promise.all(starts);
      await platform.startWorker();

      const views = await finished(messages.map((message) => message.messageId));
      await eventually(async () => (receiver.requests.length >= 3 ? true : undefined), 15_000, 'the reports');
      await new Promise((resolve) => setTimeout(resolve, 1500)); // a second report would follow within this

      for (const to of destinations) expect(submissionsTo(to)).toHaveLength(1);
      const reported = receiver.requests.map((request) => JSON.parse(request.body).data.id as string);
      expect(reported.sort()).toEqual(messages.map((message) => message.messageId).sort());
      // Every batch ends, and together they followed each message once: the repeated ones and the
      // API's (any of its batches that followed a message is the one the message names).
      const batches = new Set([
        ...handles.map((handle) => handle.workflowId),
        ...views.map((view) => view.process as string),
      ]);
      const counts = await Promise.all(
        [...batches].map(
          (id) => platform.client.workflow.getHandle(id).result() as Promise<Record<string, number>>,
        ),
      );
      const followed = counts.reduce(
        (sum, count) => sum + Object.values(count).reduce((a, b) => a + b, 0),
        0,
      );
      expect(followed).toBe(3);
      for (const view of views) expect(view.process).toMatch(/^sms-batch-/);
    } finally {
      await receiver.stop();
      await platform.stopWorker();
    }
  });
});
