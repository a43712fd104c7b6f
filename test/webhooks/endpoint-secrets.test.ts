import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptWebhookSecret, webhookSecretKey } from '../../credentials/webhooks/signing-secrets.ts';
import { webhookEndpoints } from '../../db/schema/webhooks.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import { verifyWebhook } from '../../domain/webhooks/signature.ts';
import { type Reply, startReceiver } from '../../sandbox/webhook-receiver.ts';
import type { deliverEvent } from '../../workflows/webhooks/delivery.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Webhook signing secrets at rest and in the owner's hands (issue 13, item 5): encrypted in the
 * database, an endpoint and its secret created before the first delivery, rotation with both
 * signatures during the overlap, and the replay of a failed delivery.
 */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({
    env: { WEBHOOK_RETRY_SCHEDULE: '200ms', WEBHOOK_SECRET_ROTATION_OVERLAP: '3s' },
  });
});
afterAll(async () => {
  await platform?.stop();
});

async function api(method: string, path: string, body?: unknown, token = platform.token) {
  const separator = path.includes('?') ? '&' : '?';
  const response = await fetch(`${platform.baseUrl}${path}${separator}at=${encodeURIComponent(token)}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function deliver(url: string, ownerId = platform.accountId): Promise<string> {
  const subjectId = randomUUID();
  const request: WebhookRequest = {
    service: 'messaging',
    ownerId,
    url,
    eventType: 'message.status',
    eventId: `sms-${subjectId}.delivered`,
    subjectId,
    payload: { id: subjectId, status: 'delivered' },
  };
  return platform.client.workflow.execute<typeof deliverEvent>('deliverEvent', {
    taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
    workflowId: `test-deliver-${randomUUID()}`,
    args: [request],
  });
}

function settled(id: string, token = platform.token) {
  return eventually(
    async () => {
      const { body } = await api('GET', `/webhooks/deliveries/${id}`, undefined, token);
      return body.status === 'pending' ? undefined : body;
    },
    20_000,
    `delivery ${id} to settle`,
  );
}

const headersOf = (request: { headers: Record<string, unknown> }) =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

describe('webhook endpoints and their secrets', () => {
  it('creates an endpoint with its secret before the first delivery, which is then signed with it', async () => {
    const receiver = await startReceiver();
    try {
      const created = await api('POST', '/webhooks/endpoints', { url: receiver.url });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ url: receiver.url, previousSecretExpiresAt: null });
      expect(created.body.id).toMatch(/^whe_/);
      const secret = created.body.secret as string;
      expect(secret).toMatch(/^whsec_/);

      // The same URL again: the same endpoint and secret, 200.
      const again = await api('POST', '/webhooks/endpoints', { url: receiver.url });
      expect(again).toMatchObject({ status: 200, body: { id: created.body.id, secret } });
      const listed = await api('GET', '/webhooks/endpoints');
      expect(listed.body.items).toContainEqual(expect.objectContaining({ id: created.body.id, secret }));

      await settled(await deliver(receiver.url));
      expect(receiver.requests).toHaveLength(1);
      expect(verifyWebhook(secret, headersOf(receiver.requests[0]!), receiver.requests[0]!.body)).toEqual({
        valid: true,
      });
    } finally {
      await receiver.stop();
    }
  });

  it('stores the secret encrypted, bound to its endpoint', async () => {
    const url = `https://receiver.example/${randomUUID()}`;
    const created = await api('POST', '/webhooks/endpoints', { url });
    const secret = created.body.secret as string;
    const [row] = await platform.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.body.id as string));
    expect(row!.secretEncrypted).toMatch(/^v1\./);
    expect(row!.secretEncrypted).not.toContain(secret);
    expect(row!.secretEncrypted).not.toContain(secret.slice('whsec_'.length));
    const key = webhookSecretKey(platform.config);
    expect(decryptWebhookSecret(key, row!.id, row!.secretEncrypted)).toBe(secret);
    // Copied onto another endpoint's row it does not decrypt.
    expect(() => decryptWebhookSecret(key, 'whe_000000000000000000000000', row!.secretEncrypted)).toThrow();
  });

  it('refuses a URL inside the platform’s network and a missing token; another account sees nothing', async () => {
    const inside = await api('POST', '/webhooks/endpoints', { url: 'http://169.254.169.254/latest' });
    expect(inside.status).toBe(400);
    expect(inside.body).toMatchObject({ error: { fields: [{ field: 'url' }] } });
    const notHttp = await api('POST', '/webhooks/endpoints', { url: 'ftp://receiver.example/x' });
    expect(notHttp.status).toBe(400);
    const anonymous = await fetch(`${platform.baseUrl}/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://receiver.example/a' }),
    });
    expect(anonymous.status).toBe(401);

    const created = await api('POST', '/webhooks/endpoints', {
      url: `https://receiver.example/${randomUUID()}`,
    });
    const other = await platform.issueToken('Other account');
    const listed = await api('GET', '/webhooks/endpoints', undefined, other.token);
    expect(listed.body.items).toEqual([]);
    const rotate = await api('POST', `/webhooks/endpoints/${created.body.id}/rotate-secret`, {}, other.token);
    expect(rotate.status).toBe(404);
  });

  it('rotates a secret: both signatures during the overlap, then only the new one', async () => {
    const receiver = await startReceiver();
    try {
      const created = await api('POST', '/webhooks/endpoints', { url: receiver.url });
      const oldSecret = created.body.secret as string;
      const rotated = await api('POST', `/webhooks/endpoints/${created.body.id}/rotate-secret`, {});
      expect(rotated.status).toBe(200);
      const newSecret = rotated.body.secret as string;
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(oldSecret);
      expect(rotated.body.previousSecretExpiresAt).toEqual(expect.any(String));
      const listed = await api('GET', '/webhooks/endpoints');
      expect(listed.body.items).toContainEqual(
        expect.objectContaining({ id: created.body.id, secret: newSecret }),
      );

      // Within the overlap: two signatures, a receiver holding either secret verifies.
      await settled(await deliver(receiver.url));
      const during = receiver.requests[0]!;
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifyWebhook(newSecret, headersOf(during), during.body)).toEqual({ valid: true });
      expect(verifyWebhook(oldSecret, headersOf(during), during.body)).toEqual({ valid: true });

      // After the overlap (3 s): only the new one.
      await new Promise((resolve) => setTimeout(resolve, 3200));
      await settled(await deliver(receiver.url));
      const after = receiver.requests[1]!;
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifyWebhook(newSecret, headersOf(after), after.body)).toEqual({ valid: true });
      expect(verifyWebhook(oldSecret, headersOf(after), after.body)).toEqual({
        valid: false,
        reason: 'no_matching_signature',
      });
    } finally {
      await receiver.stop();
    }
  });
});

describe('replaying a failed delivery', () => {
  it('replays a failed delivery as a new attempt series; a delivered one is 409, another owner’s 404', async () => {
    // Two attempts fail (schedule: one retry), the replay's first attempt succeeds.
    const receiver = await startReceiver((n): Reply => (n <= 2 ? { status: 500 } : { status: 200 }));
    try {
      const id = await deliver(receiver.url);
      const failed = await settled(id);
      expect(failed).toMatchObject({ status: 'failed', attemptCount: 2, replayCount: 0 });

      const other = await platform.issueToken('Replay stranger');
      expect((await api('POST', `/webhooks/deliveries/${id}/replay`, {}, other.token)).status).toBe(404);

      const replay = await api('POST', `/webhooks/deliveries/${id}/replay`, {});
      expect(replay.status).toBe(202);
      expect(replay.body).toMatchObject({ id, status: 'pending', replayCount: 1 });

      const delivered = await settled(id);
      expect(delivered).toMatchObject({ status: 'delivered', attemptCount: 3, replayCount: 1 });
      expect(
        (delivered.attempts as { attempt: number; statusCode: number }[]).map((a) => [
          a.attempt,
          a.statusCode,
        ]),
      ).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      // The same event: the same webhook-id on every request.
      expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([id, id, id]);
      expect(receiver.requests[2]!.body).toBe(receiver.requests[0]!.body);

      const again = await api('POST', `/webhooks/deliveries/${id}/replay`, {});
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ error: { code: 'delivery_not_failed' } });
      expect((await api('POST', '/webhooks/deliveries/whd_000000000000000000000000/replay', {})).status).toBe(
        404,
      );
    } finally {
      await receiver.stop();
    }
  });
});

describe('deleting an endpoint', () => {
  it('unlists it, ends its deliveries without calling it, and revives it with a new secret on a later callback', async () => {
    // Both attempts of the first delivery fail; later requests succeed.
    const receiver = await startReceiver((n): Reply => (n <= 2 ? { status: 500 } : { status: 200 }));
    try {
      const created = await api('POST', '/webhooks/endpoints', { url: receiver.url });
      const endpointId = created.body.id as string;
      const oldSecret = created.body.secret as string;
      const id = await deliver(receiver.url);
      expect(await settled(id)).toMatchObject({ status: 'failed', attemptCount: 2 });

      const other = await platform.issueToken('Delete stranger');
      expect((await api('DELETE', `/webhooks/endpoints/${endpointId}`, undefined, other.token)).status).toBe(
        404,
      );
      const deleted = await fetch(
        `${platform.baseUrl}/webhooks/endpoints/${endpointId}?at=${encodeURIComponent(platform.token)}`,
        { method: 'DELETE' },
      );
      expect(deleted.status).toBe(204);
      const listed = await api('GET', '/webhooks/endpoints');
      expect((listed.body.items as { id: string }[]).map((item) => item.id)).not.toContain(endpointId);
      expect((await api('POST', `/webhooks/endpoints/${endpointId}/rotate-secret`, {})).status).toBe(404);

      // A replay of its failed delivery ends at once: nobody listens there any more.
      expect((await api('POST', `/webhooks/deliveries/${id}/replay`, {})).status).toBe(202);
      const ended = await settled(id);
      expect(ended).toMatchObject({ status: 'failed', attemptCount: 3 });
      expect((ended.attempts as { error: string | null }[])[2]).toMatchObject({ error: 'endpoint_deleted' });
      expect(receiver.requests).toHaveLength(2);

      // A later callback to the URL revives the endpoint, with a new secret.
      expect(await settled(await deliver(receiver.url))).toMatchObject({ status: 'delivered' });
      const revived = (await api('GET', '/webhooks/endpoints')).body.items as {
        id: string;
        secret: string;
      }[];
      const endpoint = revived.find((item) => item.id === endpointId);
      expect(endpoint?.secret).toMatch(/^whsec_/);
      expect(endpoint?.secret).not.toBe(oldSecret);
      const request = receiver.requests[2]!;
      expect(verifyWebhook(endpoint!.secret, headersOf(request), request.body)).toEqual({ valid: true });
    } finally {
      await receiver.stop();
    }
  });
});
