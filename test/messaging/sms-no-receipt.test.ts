import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * A message whose delivery receipt never comes (the sandbox SMSC sends none to a number ending `0001`)
 * ends `unknown` after SMS_RECEIPT_TIMEOUT, with its report (issue 37 item 1, decision 0084 amended):
 * `expired` is only the carrier's word. Both workflows: a batch (an SMS sent now) and a message's own
 * (a scheduled SMS).
 */

let platform: TestPlatform;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ env: { SMS_RECEIPT_TIMEOUT: '3s' } });
});
afterAll(async () => {
  await platform?.stop();
});

describe('a message without a delivery receipt', () => {
  it('ends unknown after SMS_RECEIPT_TIMEOUT and is reported so, in a batch and alone', async () => {
    const receiver = await startReceiver();
    try {
      const from = '+359888000111';
      const now = await api('POST', '/sms', {
        body: { to: '+359888130001', from, message: 'no receipt', dlrUrl: receiver.url },
      });
      const scheduled = new Date(Date.now() + 1000).toISOString();
      const later = await api('POST', '/sms', {
        body: { to: '+359888140001', from, message: 'no receipt either', scheduled, dlrUrl: receiver.url },
      });
      const ids = [now.json.id as string, later.json.id as string];
      const views = await eventually(
        async () => {
          const read = await Promise.all(ids.map(async (id) => (await api('GET', `/sms/${id}`)).json));
          return read.every(
            (view) => !['accepted', 'scheduled', 'sending', 'submitted'].includes(view.status as string),
          )
            ? read
            : undefined;
        },
        30_000,
        'both messages final',
      );
      for (const view of views)
        expect(view).toMatchObject({
          status: 'unknown',
          error: expect.stringMatching(/^no delivery receipt within SMS_RECEIPT_TIMEOUT/),
        });
      // One went through a batch, the other (scheduled) through a workflow of its own.
      expect(views.map((view) => (view.process as string).startsWith('sms-batch-'))).toEqual([true, false]);
      await eventually(async () => (receiver.requests.length >= 2 ? true : undefined), 15_000, 'the reports');
      const reported = receiver.requests.map((request) => JSON.parse(request.body).data);
      expect(reported.map((data) => [data.id, data.status]).sort()).toEqual(
        ids.map((id) => [id, 'unknown']).sort(),
      );
    } finally {
      await receiver.stop();
    }
  });
});
