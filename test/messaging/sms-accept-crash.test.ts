import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingMessages, messagingOutbox } from '../../db/schema/messaging.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';

/**
 * The accept path under a crash (decision 0066): an API process answering POST /sms at full speed is
 * SIGKILLed. Every message it wrote, answered or not, is handed over by another API process once its
 * lease passes, and reaches the carrier exactly once: none stays `accepted` without a workflow.
 */
let platform: TestPlatform;
const apis = workerProcesses(() => platform.env, 'api');

beforeAll(async () => {
  platform = await startTestPlatform({ env: { MESSAGING_HANDOVER_LEASE: '2s' } });
});

afterAll(async () => {
  await apis.killAll();
  await platform?.stop();
});

describe('accepting messages while the API process is killed', () => {
  it('hands over every written message once, answered or not', async () => {
    const api = await apis.start();
    const account = await platform.issueToken('Crash account');
    await platform.grantSenders(account.accountId, { numbers: ['+359888000111'] });
    const answered = new Set<string>();
    let sent = 0;
    let killed = false;

    const sender = async () => {
      for (;;) {
        const text = `crash test ${sent++}`;
        try {
          const response = await fetch(`${api.url}/messaging/sms?at=${account.token}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ to: '+359881234567', from: '+359888000111', message: text }),
          });
          if (response.status === 202) answered.add(text);
          else if (!killed)
            throw new Error(`POST /sms answered ${response.status}: ${await response.text()}`);
        } catch (error) {
          if (killed) return; // the process is gone: this request may or may not have been written
          throw error;
        }
      }
    };
    const senders = Array.from({ length: 16 }, sender);
    await eventually(async () => (answered.size >= 150 ? true : undefined), 60_000, '150 accepted');
    killed = true;
    await api.kill();
    await Promise.all(senders);

    const rows = await platform.db
      .select({
        id: messagingMessages.id,
        message: messagingMessages.message,
        status: messagingMessages.status,
      })
      .from(messagingMessages)
      .where(eq(messagingMessages.accountId, account.accountId));
    // Every answered message was written (a written one may not have been answered: the kill).
    const written = new Set(rows.map((row) => row.message));
    for (const text of answered) expect(written.has(text), text).toBe(true);

    // The test process's own API hand-over takes what the killed one held, once its lease passes.
    await eventually(
      async () => {
        const pending = await platform.db
          .select({ status: messagingMessages.status })
          .from(messagingMessages)
          .where(eq(messagingMessages.accountId, account.accountId));
        return pending.every((row) => row.status === 'delivered') ? true : undefined;
      },
      90_000,
      'every written message delivered',
    );
    // A workflow the killed process started before its entry's delete was sent has its message delivered
    // with the entry still there: the entry goes once its lease passes (the poll finds it started).
    await eventually(
      async () => ((await platform.db.select().from(messagingOutbox)).length === 0 ? true : undefined),
      30_000,
      'every outbox entry deleted',
    );
    const submissions = new Map<string, number>();
    for (const sms of platform.sandbox.smpp.submitted) {
      if (sms.text.startsWith('crash test ')) submissions.set(sms.text, (submissions.get(sms.text) ?? 0) + 1);
    }
    expect(new Set(submissions.keys())).toEqual(written);
    expect([...submissions.values()].filter((count) => count > 1)).toEqual([]);
  }, 180_000);
});
