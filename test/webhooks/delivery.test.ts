import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebhookRequest, webhookDeliveryWorkflowId } from '../../domain/webhooks/processes.ts';
import { verifyWebhook } from '../../domain/webhooks/signature.ts';
import { type Reply, startReceiver } from '../../sandbox/webhook-receiver.ts';
import type { deliverEvent } from '../../workflows/webhooks/delivery.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

// The platform's test configuration retries after 200ms, five times (six attempts in all).
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ env: { WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms' } });
});
afterAll(async () => {
  await platform?.stop();
});

interface DeliveryBody {
  id: string;
  status: string;
  attemptCount: number;
  eventId: string;
  url: string;
  payload: Record<string, unknown>;
  attempts: {
    attempt: number;
    statusCode: number | null;
    error: string | null;
    retryAfterMs: number | null;
    attemptedAt: string;
  }[];
}

function eventFor(url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest {
  const subjectId = randomUUID();
  return {
    service: 'messaging',
    ownerId: platform.accountId,
    url,
    eventType: 'message.status',
    eventId: `sms-${subjectId}.delivered`,
    subjectId,
    payload: { id: subjectId, status: 'delivered' },
    ...overrides,
  };
}

/** Starts the small `deliverEvent` workflow (as admin tools do) and returns the delivery id. */
function deliver(request: WebhookRequest): Promise<string> {
  return platform.client.workflow.execute<typeof deliverEvent>('deliverEvent', {
    taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
    workflowId: `test-deliver-${randomUUID()}`,
    args: [request],
  });
}

async function get(path: string, token = platform.token) {
  const separator = path.includes('?') ? '&' : '?';
  const response = await fetch(`${platform.baseUrl}${path}${separator}at=${encodeURIComponent(token)}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function finishedDelivery(id: string): Promise<DeliveryBody> {
  return eventually(
    async () => {
      const { status, body } = await get(`/webhooks/deliveries/${id}`);
      expect(status).toBe(200);
      return body.status === 'pending' ? undefined : (body as unknown as DeliveryBody);
    },
    20_000,
    `delivery ${id} to finish`,
  );
}

async function secretOf(url: string): Promise<string> {
  const { body } = await get('/webhooks/endpoints');
  const endpoint = (body.items as { url: string; secret: string }[]).find((item) => item.url === url);
  if (!endpoint) throw new Error(`no endpoint for ${url}`);
  return endpoint.secret;
}

describe('webhook delivery', () => {
  it('retries a failing receiver until it answers 2xx: one delivery, four recorded attempts, each signed afresh', async () => {
    const receiver = await startReceiver((n): Reply => (n <= 3 ? { status: 500 } : { status: 200 }));
    try {
      const request = eventFor(receiver.url);
      const deliveryId = await deliver(request);
      expect(deliveryId).toMatch(/^whd_[0-9a-f]{24}$/);

      const delivery = await finishedDelivery(deliveryId);
      expect(delivery).toMatchObject({
        id: deliveryId,
        status: 'delivered',
        attemptCount: 4,
        eventId: request.eventId,
      });
      expect(delivery.payload).toEqual(request.payload);
      expect(
        delivery.attempts.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.error]),
      ).toEqual([
        [1, 500, 'HTTP 500'],
        [2, 500, 'HTTP 500'],
        [3, 500, 'HTTP 500'],
        [4, 200, null],
      ]);

      // Exactly four requests, and exactly one of them succeeded.
      expect(receiver.requests).toHaveLength(4);
      const secret = await secretOf(receiver.url);
      expect(secret).toMatch(/^whsec_/);
      for (const received of receiver.requests) {
        expect(received.method).toBe('POST');
        expect(received.headers['webhook-id']).toBe(deliveryId);
        const headers = received.headers as Record<string, string>;
        expect(verifyWebhook(secret, headers, received.body, 300)).toEqual({ valid: true });
        expect(JSON.parse(received.body)).toMatchObject({ type: 'message.status', data: request.payload });
      }
      const signatures = new Set(receiver.requests.map((received) => received.headers['webhook-signature']));
      expect(signatures.size).toBeGreaterThan(1); // a new timestamp, a new signature (attempts span > 1 s)

      // The scheduled 200 ms pause lies between attempts.
      for (let i = 1; i < receiver.requests.length; i++) {
        expect(receiver.requests[i]!.at - receiver.requests[i - 1]!.at).toBeGreaterThanOrEqual(180);
      }

      const handle = platform.client.workflow.getHandle(`webhook-${deliveryId}`);
      expect(await handle.result()).toBe('delivered');
    } finally {
      await receiver.stop();
    }
  });

  it('runs each delivery on the delivery task queue, apart from the business workflows (decision 0024)', async () => {
    const receiver = await startReceiver((): Reply => ({ status: 200 }));
    try {
      const deliveryId = await deliver(eventFor(receiver.url));
      await finishedDelivery(deliveryId);
      const described = await platform.client.workflow
        .getHandle(webhookDeliveryWorkflowId(deliveryId))
        .describe();
      expect(described.taskQueue).toBe(`${platform.config.TEMPORAL_TASK_QUEUE}-delivery`);
    } finally {
      await receiver.stop();
    }
  });

  it("waits as long as the receiver's Retry-After asks when that is longer than the schedule", async () => {
    const receiver = await startReceiver(
      (n): Reply => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }),
    );
    try {
      const deliveryId = await deliver(eventFor(receiver.url));
      const delivery = await finishedDelivery(deliveryId);
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts.map((attempt) => [attempt.statusCode, attempt.retryAfterMs])).toEqual([
        [503, 2000],
        [200, null],
      ]);
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(1950);
    } finally {
      await receiver.stop();
    }
  });

  it('gives up as failed when the schedule is exhausted', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    try {
      const deliveryId = await deliver(eventFor(receiver.url));
      const delivery = await finishedDelivery(deliveryId);
      expect(delivery.status).toBe('failed');
      expect(delivery.attemptCount).toBe(6);
      expect(delivery.attempts).toHaveLength(6);
      expect(receiver.requests).toHaveLength(6);
      expect(await platform.client.workflow.getHandle(`webhook-${deliveryId}`).result()).toBe('failed');
    } finally {
      await receiver.stop();
    }
  });

  it('ends at once, failed after one attempt, when the outbound-URL policy refuses the destination', async () => {
    const id = await deliver(eventFor('http://10.0.0.7/hook'));
    const delivery = await finishedDelivery(id);
    expect(delivery.status).toBe('failed');
    expect(delivery.attemptCount).toBe(1);
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ statusCode: null, error: 'refused_by_policy' }),
    ]);
  });

  it('records an unreachable receiver as an attempt without status code', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.stop(); // nothing listens there any more
    const deliveryId = await deliver(eventFor(url));
    const delivery = await finishedDelivery(deliveryId);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, statusCode: null, error: 'connection_failed' });
  });

  it('delivers the same event only once, however often it is sent', async () => {
    // The first attempt fails, so the delivery is still under way when the event is sent again.
    const receiver = await startReceiver((n): Reply => (n === 1 ? { status: 500 } : { status: 200 }));
    try {
      const request = eventFor(receiver.url);
      const [first, concurrent] = await Promise.all([deliver(request), deliver(request)]);
      expect(concurrent).toBe(first);
      await eventually(async () => (receiver.requests.length >= 1 ? true : undefined));
      expect((await get(`/webhooks/deliveries/${first}`)).body.status).toBe('pending');
      // Its workflow is running: starting it again must not fail the sender.
      expect(await deliver(request)).toBe(first);

      const delivery = await finishedDelivery(first);
      expect(delivery).toMatchObject({ status: 'delivered', attemptCount: 2 });
      // Sent again after it was delivered: still the same delivery, no new run, nothing new is posted.
      const workflow = platform.client.workflow.getHandle(`webhook-${first}`);
      const { runId } = await workflow.describe();
      expect(await deliver(request)).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await workflow.describe()).runId).toBe(runId);
      expect(receiver.requests.map((received) => received.headers['webhook-id'])).toEqual([first, first]);

      const { body } = await get(`/webhooks/deliveries?subjectId=${request.subjectId}`);
      expect(body).toMatchObject({ page: 1, size: 20, total: 1 });
      expect((body.items as { id: string }[]).map((item) => item.id)).toEqual([first]);

      // The same event to another URL of the owner is a delivery of its own.
      const other = await startReceiver();
      try {
        const toOther = await deliver({ ...request, url: other.url });
        expect(toOther).not.toBe(first);
        await finishedDelivery(toOther);
        expect(other.requests).toHaveLength(1);
      } finally {
        await other.stop();
      }
    } finally {
      await receiver.stop();
    }
  });
});

describe('webhook read API', () => {
  it("answers 404 for another account's delivery, exactly as for an unknown one, and lists nothing of it", async () => {
    const receiver = await startReceiver();
    try {
      const request = eventFor(receiver.url);
      const deliveryId = await deliver(request);
      await finishedDelivery(deliveryId);

      const other = await platform.issueToken();
      const foreign = await get(`/webhooks/deliveries/${deliveryId}`, other.token);
      const unknown = await get('/webhooks/deliveries/whd_000000000000000000000000', other.token);
      expect(foreign).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'Webhook delivery not found' } },
      });
      expect(unknown).toEqual(foreign);

      const list = await get(`/webhooks/deliveries?subjectId=${request.subjectId}`, other.token);
      expect(list).toEqual({ status: 200, body: { page: 1, size: 20, total: 0, items: [] } });
      const endpoints = await get('/webhooks/endpoints', other.token);
      expect(endpoints).toEqual({ status: 200, body: { items: [] } });
    } finally {
      await receiver.stop();
    }
  });

  it('pages the owner’s deliveries, newest first', async () => {
    const receiver = await startReceiver();
    try {
      const owner = await platform.issueToken('Paging account');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(await deliver(eventFor(receiver.url, { ownerId: owner.accountId })));
      const first = await get('/webhooks/deliveries?size=2', owner.token);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ page: 1, size: 2, total: 3 });
      const second = await get('/webhooks/deliveries?size=2&page=2', owner.token);
      const listed = [
        ...(first.body.items as { id: string }[]),
        ...(second.body.items as { id: string }[]),
      ].map((item) => item.id);
      expect(listed).toEqual([...ids].reverse());
    } finally {
      await receiver.stop();
    }
  });

  it('rejects page sizes outside 1..100 and a missing token', async () => {
    const tooBig = await get('/webhooks/deliveries?size=101');
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({ error: { code: 'validation_failed', fields: [{ field: 'size' }] } });
    const zero = await get('/webhooks/deliveries?page=0');
    expect(zero.status).toBe(400);
    expect(zero.body).toMatchObject({ error: { code: 'validation_failed', fields: [{ field: 'page' }] } });

    const anonymous = await fetch(`${platform.baseUrl}/webhooks/deliveries`);
    expect(anonymous.status).toBe(401);
  });
});
