import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAppProvider } from '../../connectors/messaging/chatapp-provider.ts';
import { type SandboxHttpParties, startHttpParties } from '../../sandbox/messaging/http-parties.ts';

const API_KEY = 'sandbox-chatapp-key';
const DELAY_MS = 300;

let parties: SandboxHttpParties;
beforeAll(async () => {
  parties = await startHttpParties({ port: 0, chatAppDelayMs: DELAY_MS });
});
afterAll(async () => {
  await parties?.stop();
});

const provider = () => createChatAppProvider({ baseUrl: `${parties.url}/chatapp`, apiKey: API_KEY });
const submission = (to: string) => ({
  messageId: randomUUID(),
  to,
  from: 'ACME',
  message: 'Your code is 4711',
});

async function finalReceipt(id: string) {
  for (let i = 0; i < 100; i++) {
    const receipt = await provider().receipt(id);
    if (receipt) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no receipt for ${id}`);
}

describe('chat-app provider client against the sandbox provider', () => {
  it('submits once per message id, however often the submission is retried', async () => {
    const message = submission('+359888123456');
    const first = await provider().submit(message);
    const again = await provider().submit(message);
    expect(first).toMatchObject({ outcome: 'submitted' });
    expect(again).toEqual(first);
    const sent = parties.chatAppMessages.filter((entry) => entry.idempotencyKey === message.messageId);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: '+359888123456', from: 'ACME', text: 'Your code is 4711' });
  });

  it('has no receipt while the message is queued, then reports it delivered', async () => {
    const result = await provider().submit(submission('+359888123457'));
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    expect(await provider().receipt(result.carrierMessageId)).toBeUndefined();
    const receipt = await finalReceipt(result.carrierMessageId);
    expect(receipt).toMatchObject({
      carrierMessageId: result.carrierMessageId,
      status: 'delivered',
      carrierStatus: 'delivered',
    });
    expect(Date.parse(receipt.doneAt ?? '')).toBeGreaterThan(0);
  });

  it('reports a recipient who is not on the app as undeliverable', async () => {
    const result = await provider().submit(submission('+359888100000'));
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    expect(await finalReceipt(result.carrierMessageId)).toMatchObject({
      status: 'undeliverable',
      carrierStatus: 'failed',
      errorCode: 'not_on_chatapp',
    });
  });

  it('returns a permanent refusal (4xx) as rejected', async () => {
    expect(await provider().submit(submission('not-a-number'))).toEqual({
      outcome: 'rejected',
      error: 'invalid_recipient: to must be an MSISDN',
    });
    const wrongKey = createChatAppProvider({ baseUrl: `${parties.url}/chatapp`, apiKey: 'wrong' });
    expect(await wrongKey.submit(submission('+359888123458'))).toEqual({
      outcome: 'rejected',
      error: 'invalid_api_key',
    });
  });

  it('throws on 5xx, 429 and network failures so that the activity retries', async () => {
    for (const status of [503, 429]) {
      const failing = createChatAppProvider({
        baseUrl: `${parties.url}/chatapp`,
        apiKey: API_KEY,
        fetch: async () => new Response(JSON.stringify({ error: 'busy' }), { status }),
      });
      await expect(failing.submit(submission('+359888123459'))).rejects.toThrow(
        `chat-app provider failed (${status}): busy`,
      );
    }
    const unreachable = createChatAppProvider({ baseUrl: 'http://127.0.0.1:1/chatapp', apiKey: API_KEY });
    await expect(unreachable.submit(submission('+359888123459'))).rejects.toThrow();
  });

  it('requires the API key on status queries too', async () => {
    const result = await provider().submit(submission('+359888123460'));
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    const wrongKey = createChatAppProvider({ baseUrl: `${parties.url}/chatapp`, apiKey: 'wrong' });
    await expect(wrongKey.receipt(result.carrierMessageId)).rejects.toThrow('(401): invalid_api_key');
  });
});
