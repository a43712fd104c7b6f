import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * `npm run webhooks -- listen --events message.inbound` (decision 0087): the listener points the
 * account's inbound numbers at itself, forwards a verified `message.inbound` of an SMS the sandbox
 * handset sent, and puts the numbers' URLs back on SIGINT.
 */

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const NUMBER = '+359888770011';

let platform: TestPlatform;
let dataDir: string;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  dataDir = await mkdtemp(path.join(tmpdir(), 'inbound-listen-'));
});
afterAll(async () => {
  await platform?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('webhooks listen --events message.inbound', () => {
  it('receives the SMS sent to the account’s numbers while it runs, then restores their URLs', async () => {
    const original = await startReceiver();
    const target = await startReceiver();
    const assigned = await fetch(
      `${platform.apiUrl}/admin/messaging/accounts/${platform.accountId}/numbers`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ number: NUMBER, inboundUrl: original.url }),
      },
    );
    expect(assigned.status).toBe(201);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'cmd/webhooks-cli.ts',
        'listen',
        '--events',
        'message.inbound',
        '--forward-to',
        target.url,
      ],
      {
        env: { ...process.env, API_URL: platform.apiUrl, DATA_DIR: dataDir, AT: platform.token },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = { text: '' };
    child.stdout?.on('data', (chunk: Buffer) => (output.text += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output.text += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const secret = (
        await eventually(
          async () => output.text.match(/Signing secret[^:]*: (whsec_\S+)/) ?? undefined,
          30_000,
          'secret',
        )
      )[1] as string;
      await eventually(
        async () => (output.text.includes(`SMS to ${NUMBER} come here`) ? true : undefined),
        30_000,
        'pointed',
      );

      const sent = await fetch(`${platform.sandbox.http.url}/handset/359888555011/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: NUMBER, text: 'hello listener' }),
      });
      expect(sent.status).toBe(202);
      await eventually(
        async () => (target.requests.length > 0 ? true : undefined),
        20_000,
        'the forwarded event',
      );
      const [request] = target.requests;
      const event = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
        type: string;
        data: Record<string, unknown>;
      };
      expect(event).toMatchObject({
        type: 'message.inbound',
        data: { from: '+359888555011', to: NUMBER, text: 'hello listener' },
      });
      expect(original.requests).toEqual([]);

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output.text).toContain(`restored ${NUMBER}'s inbound URL: ${original.url}`);
      expect((await api('GET', '/inbound/numbers')).json.items).toEqual([
        expect.objectContaining({ number: NUMBER, inboundUrl: original.url }),
      ]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await original.stop();
      await target.stop();
    }
  });
});
