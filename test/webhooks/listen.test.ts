import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import { signWebhook, verifyWebhook } from '../../domain/webhooks/signature.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import type { deliverEvent } from '../../workflows/webhooks/delivery.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * `npm run webhooks -- listen --forward-to <url>` (issue 25, item 4) as a developer runs it: a child
 * process against a running platform registers a temporary endpoint, verifies and forwards a real
 * delivery report to a local server, and deletes the endpoint on Ctrl-C.
 */

let platform: TestPlatform;
let dataDir: string;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform();
  dataDir = await mkdtemp(path.join(tmpdir(), 'webhooks-listen-'));
});
afterAll(async () => {
  await platform?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The CLI as a child process, with everything it printed so far. */
function startListen(args: string[], env: Record<string, string> = { AT: platform.token }) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cmd/webhooks-cli.ts', 'listen', ...args], {
    env: { ...process.env, API_URL: platform.apiUrl, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.text += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.text += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

function lineMatching(output: { text: string }, pattern: RegExp, what: string) {
  return eventually(async () => output.text.match(pattern) ?? undefined, 30_000, what);
}

describe('npm run webhooks -- listen', () => {
  it('forwards a verified delivery report to --forward-to and deletes its endpoint on SIGINT', async () => {
    const target = await startReceiver();
    let listen: { child: ChildProcess; output: { text: string }; exited: Promise<number | null> } | undefined;
    try {
      listen = startListen(['--forward-to', target.url]);
      const { output } = listen;
      const ready = await lineMatching(
        output,
        /Ready\. Endpoint (whe_\S+): (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
        'ready',
      );
      const [, endpointId, listenUrl] = ready as unknown as [string, string, string];
      const secret = (
        await lineMatching(output, /Signing secret[^:]*: (whsec_\S+)/, 'the secret')
      )[1] as string;

      // The endpoint is the caller's, with the secret the CLI printed.
      const endpoints = await api('GET', '/webhooks/endpoints');
      expect(endpoints.json.items).toContainEqual(
        expect.objectContaining({ id: endpointId, url: listenUrl, secret }),
      );

      // A request not signed with the endpoint's secret is refused and not forwarded.
      const forged = await fetch(listenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'whd_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        },
        body: '{"type":"message.status"}',
      });
      expect(forged.status).toBe(400);
      await lineMatching(output, /whd_forged {2}rejected: signature no_matching_signature/, 'the rejection');

      // A real event: an SMS whose delivery report goes to the listener.
      const sms = await api('POST', '/sms', {
        body: { to: '+359888123456', from: '+359888000111', message: 'listen test', dlrUrl: listenUrl },
      });
      expect(sms.status).toBe(202);
      const forwarded = await eventually(async () => target.requests[0], 30_000, 'the forwarded report');
      expect(target.requests).toHaveLength(1);
      const report = JSON.parse(forwarded.body) as { type: string; data: { id: string } };
      expect(report).toMatchObject({ type: 'message.status', data: { id: sms.json.id } });
      const headers = {
        'webhook-id': String(forwarded.headers['webhook-id']),
        'webhook-timestamp': String(forwarded.headers['webhook-timestamp']),
        'webhook-signature': String(forwarded.headers['webhook-signature']),
      };
      expect(forwarded.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(secret, headers, forwarded.body)).toEqual({ valid: true });

      // The exact body the platform sent: the delivery the platform recorded as delivered by the listener.
      const delivery = await eventually(async () => {
        const { json } = await api('GET', `/webhooks/deliveries/${headers['webhook-id']}`);
        return json.status === 'delivered' ? json : undefined;
      });
      expect(delivery).toMatchObject({ endpointId, eventType: 'message.status', url: listenUrl });
      expect(report).toEqual({
        type: 'message.status',
        timestamp: expect.any(String),
        data: delivery.payload,
      });
      await lineMatching(
        output,
        new RegExp(`\\S+Z {2}message\\.status {2}${headers['webhook-id']} {2}→ 200`),
        'the event line',
      );

      // The same delivery replayed (its signature still valid, within the tolerance): acknowledged, and
      // not forwarded a second time.
      const replayed = await fetch(listenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: forwarded.body,
      });
      expect(replayed.status).toBe(200);
      expect(target.requests).toHaveLength(1);
      await lineMatching(
        output,
        new RegExp(`message\\.status {2}${headers['webhook-id']} {2}dropped: webhook-id already forwarded`),
        'the replay line',
      );

      // Ctrl-C: the temporary endpoint is deleted, and the process ends.
      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
      expect(output.text).toContain(`SIGINT: deleted endpoint ${endpointId}`);
      const after = await api('GET', '/webhooks/endpoints');
      expect((after.json.items as { id: string }[]).map((item) => item.id)).not.toContain(endpointId);
      expect((await api('DELETE', `/webhooks/endpoints/${endpointId}`)).status).toBe(404);
    } finally {
      if (listen && listen.child.exitCode === null) listen.child.kill('SIGKILL');
      await target.stop();
    }
  }, 90_000);

  it('forwards a retry of a delivery the local app failed, and drops a repeat of one it took', async () => {
    // The local app fails the first attempt, then takes them.
    const target = await startReceiver((attempt) => ({ status: attempt === 1 ? 500 : 200 }));
    const listen = startListen(['--forward-to', target.url]);
    try {
      const ready = await lineMatching(listen.output, /Ready\. Endpoint whe_\S+: (http:\/\/\S+)/, 'ready');
      const listenUrl = ready[1] as string;
      const secret = (
        await lineMatching(listen.output, /Signing secret[^:]*: (whsec_\S+)/, 'the secret')
      )[1] as string;
      const id = `whd_${randomUUID()}`;
      const body = JSON.stringify({ type: 'message.status', timestamp: new Date().toISOString(), data: {} });
      // Each attempt as the platform sends it: the same webhook-id, a fresh timestamp and signature.
      const attempt = (at: number) =>
        fetch(listenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signWebhook(secret, id, at, body) },
          body,
        });
      const now = Math.floor(Date.now() / 1000);

      expect((await attempt(now)).status).toBe(500);
      expect((await attempt(now + 1)).status).toBe(200);
      expect(target.requests).toHaveLength(2);
      expect((await attempt(now + 2)).status).toBe(200);
      expect(target.requests).toHaveLength(2);
      await lineMatching(listen.output, new RegExp(`${id} {2}→ 500`), 'the failed attempt');
      await lineMatching(listen.output, new RegExp(`${id} {2}→ 200`), 'the retry');
      await lineMatching(
        listen.output,
        new RegExp(`${id} {2}dropped: webhook-id already forwarded`),
        'the drop',
      );
      // The listener says so when it starts.
      expect(listen.output.text).toMatch(/the last 10000 forwarded webhook-ids/);
    } finally {
      listen.child.kill('SIGTERM');
      await listen.exited;
      await target.stop();
    }
  }, 90_000);

  it('forwards open-banking hook calls, a compact JWS or its JSON envelope, byte for byte (--service openbanking)', async () => {
    const target = await startReceiver();
    const agent = await platform.openBanking.createAgent('Listen agent');
    const listen = startListen(['--service', 'openbanking', '--forward-to', target.url], {
      AGENT_HASH: agent.agentHash,
    });
    try {
      const ready = await lineMatching(listen.output, /Ready\. Endpoint (whe_\S+): (http:\/\/\S+)/, 'ready');
      const [, endpointId, listenUrl] = ready as unknown as [string, string, string];
      const secret = (
        await lineMatching(listen.output, /Signing secret[^:]*: (whsec_\S+)/, 'the secret')
      )[1] as string;

      // A hook call as the consent workflow sends it (its JWS stands in for a signed one: only the bytes matter here).
      const payload = Buffer.from(JSON.stringify({ type: 'consent.finished', consentId: 'con_1' })).toString(
        'base64url',
      );
      const jws = `eyJhbGciOiJFUzI1NiJ9.${payload}.c2lnbmF0dXJl`;
      const request: WebhookRequest = {
        service: 'openbanking',
        ownerId: agent.agentId,
        url: listenUrl,
        eventType: 'consent.finished',
        eventId: `con-${randomUUID()}.finished`,
        payload: { jws },
        format: 'openbanking-jws',
      };
      await platform.client.workflow.execute<typeof deliverEvent>('deliverEvent', {
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        workflowId: `test-listen-${randomUUID()}`,
        args: [request],
      });
      const forwarded = await eventually(async () => target.requests[0], 30_000, 'the forwarded hook call');
      expect(forwarded.body).toBe(jws);
      expect(forwarded.headers['content-type']).toBe('application/jose');
      const headers = {
        'webhook-id': String(forwarded.headers['webhook-id']),
        'webhook-timestamp': String(forwarded.headers['webhook-timestamp']),
        'webhook-signature': String(forwarded.headers['webhook-signature']),
      };
      expect(verifyWebhook(secret, headers, forwarded.body)).toEqual({ valid: true });
      await lineMatching(listen.output, /consent\.finished {2}whd_\S+ {2}→ 200/, 'the event line');

      // The JSON envelope hooks get by default (decision 0064): verified by the CLI, forwarded, and
      // verifiable by the reference library's default verify().
      await platform.client.workflow.execute<typeof deliverEvent>('deliverEvent', {
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        workflowId: `test-listen-${randomUUID()}`,
        args: [{ ...request, eventId: `con-${randomUUID()}.finished`, format: 'openbanking-jws-envelope' }],
      });
      const enveloped = await eventually(async () => target.requests[1], 30_000, 'the forwarded envelope');
      expect(enveloped.headers['content-type']).toBe('application/json');
      const envelopeHeaders = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
          name,
          String(enveloped.headers[name]),
        ]),
      );
      expect(new Webhook(secret).verify(enveloped.body, envelopeHeaders)).toMatchObject({
        type: 'consent.finished',
        data: { jws },
      });
      await lineMatching(
        listen.output,
        new RegExp(`consent\\.finished {2}${envelopeHeaders['webhook-id']} {2}→ 200`),
        'the envelope’s event line',
      );

      listen.child.kill('SIGTERM');
      expect(await listen.exited).toBe(0);
      expect(listen.output.text).toContain(`SIGTERM: deleted endpoint ${endpointId}`);
    } finally {
      if (listen.child.exitCode === null) listen.child.kill('SIGKILL');
      await target.stop();
    }
  }, 90_000);
});
