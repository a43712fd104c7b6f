import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const api = messagingClient(() => platform);

async function messageStatus(id: string, finalOnly = true) {
  return eventually(
    async () => {
      const { json } = await api('GET', `/sms/${id}`);
      const status = json.status as string;
      return !finalOnly || !['accepted', 'scheduled', 'sending', 'submitted'].includes(status)
        ? json
        : undefined;
    },
    20_000,
    `message ${id} to reach a final status`,
  );
}

describe('POST /sms', () => {
  it('accepts a message at once with its segment count, and delivers it over SMPP', async () => {
    const { status, json } = await api('POST', '/sms', {
      body: { to: '+359 888 123 456', from: '+359888000111', message: 'a'.repeat(161) },
    });
    expect(status).toBe(202);
    expect(json).toMatchObject({ status: 'accepted', to: '+359888123456', encoding: 'GSM-7', parts: 2 });
    const done = await messageStatus(json.id as string);
    expect(done).toMatchObject({ status: 'delivered', error: null });
    expect(Date.parse(done.doneAt as string)).toBeGreaterThanOrEqual(Date.parse(done.submittedAt as string));
    const submitted = platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888123456');
    expect(submitted).toHaveLength(1);
    expect(submitted[0]?.text).toBe('a'.repeat(161));
  });

  it('counts UCS-2 segments for text outside GSM-7', async () => {
    const { status, json } = await api('POST', '/sms', {
      body: { to: '+359888123457', from: '+359888000111', message: 'Здравей'.repeat(11) },
    });
    expect(status).toBe(202);
    expect(json).toMatchObject({ encoding: 'UCS-2', parts: 2 });
  });

  it('reports an undeliverable number as such', async () => {
    const { json } = await api('POST', '/sms', {
      body: { to: '+359888120000', from: '+359888000111', message: 'hi' },
    });
    expect(await messageStatus(json.id as string)).toMatchObject({ status: 'undeliverable' });
  });

  it('returns the same message for a repeated Idempotency-Key and sends once', async () => {
    const body = { to: '+359888123458', from: '+359888000111', message: 'once only' };
    const headers = { 'idempotency-key': 'order-1' };
    const first = await api('POST', '/sms', { body, headers });
    const second = await api('POST', '/sms', { body, headers });
    expect(second.status).toBe(202);
    expect(second.json.id).toBe(first.json.id);
    await messageStatus(first.json.id as string);
    expect(platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888123458')).toHaveLength(
      1,
    );
    const reused = await api('POST', '/sms', { body: { ...body, message: 'another text' }, headers });
    expect(reused.status).toBe(422);
    expect(reused.json.error?.code).toBe('idempotency_key_reused');
  });

  it('keeps a text flagged containsCode masked, sends it whole, and binds its Idempotency-Key to it', async () => {
    const message = '482913 is your code for loan 77';
    const body = { to: '+359888123450', from: '+359888000111', message, containsCode: true };
    const headers = { 'idempotency-key': 'code-1' };
    const first = await api('POST', '/sms', { body, headers });
    expect(first.status).toBe(202);
    const id = first.json.id as string;
    const done = await messageStatus(id);
    expect(done).toMatchObject({
      status: 'delivered',
      containsCode: true,
      message: '****** is your code for loan **',
    });
    expect(platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888123450')[0]?.text).toBe(
      message,
    );
    const [row] = await platform.db.select().from(messagingMessages).where(eq(messagingMessages.id, id));
    expect(JSON.stringify(row)).not.toContain('482913');
    // The same request is the same message; another code under the key is refused, not answered as sent.
    expect((await api('POST', '/sms', { body, headers })).json.id).toBe(id);
    const other = await api('POST', '/sms', {
      body: { ...body, message: '111111 is your code for loan 77' },
      headers,
    });
    expect(other.status).toBe(422);
    const unflagged = await api('POST', '/sms', { body: { ...body, containsCode: false }, headers });
    expect(unflagged.status).toBe(422);
  });

  it('binds an Idempotency-Key to the whole request: another scheduled time or dlrUrl is refused', async () => {
    const day = 86_400_000;
    const body = {
      to: '+359888123459',
      from: '+359888000111',
      message: 'bound to the whole request',
      scheduled: new Date(Date.now() + day).toISOString(),
      dlrUrl: 'https://example.com/dlr-a',
    };
    const headers = { 'idempotency-key': 'order-whole-request' };
    const first = await api('POST', '/sms', { body, headers });
    expect(first.status).toBe(202);
    const { dlrUrl: _, ...withoutDlrUrl } = body;
    for (const other of [
      { ...body, scheduled: new Date(Date.parse(body.scheduled) + day).toISOString() },
      { ...body, dlrUrl: 'https://example.com/dlr-b' },
      withoutDlrUrl,
    ]) {
      const reused = await api('POST', '/sms', { body: other, headers });
      expect({ status: reused.status, code: reused.json.error?.code }).toEqual({
        status: 422,
        code: 'idempotency_key_reused',
      });
    }
    const same = await api('POST', '/sms', { body, headers });
    expect({ status: same.status, id: same.json.id }).toEqual({ status: 202, id: first.json.id });
  });

  it('rejects a missing or wrong access token with 401', async () => {
    const body = { to: '+359888123456', from: '+359888000111', message: 'x' };
    for (const token of [null, 'at_wrong']) {
      const { status, json } = await api('POST', '/sms', { body, token });
      expect(status).toBe(401);
      expect(json.error?.code).toBe('unauthorized');
    }
  });

  const valid = { to: '+359888123456', from: '+359888000111', message: 'hello' };
  it.each([
    ['missing to', { from: valid.from, message: valid.message }, 400, 'validation_failed', 'to'],
    ['missing from', { to: valid.to, message: valid.message }, 400, 'validation_failed', 'from'],
    ['missing message', { to: valid.to, from: valid.from }, 400, 'validation_failed', 'message'],
    ['empty message', { ...valid, message: '' }, 400, 'validation_failed', 'message'],
    ['to of wrong type', { ...valid, to: 359888123456 }, 400, 'validation_failed', 'to'],
    ['invalid number', { ...valid, to: '+35912' }, 400, 'validation_failed', 'to'],
    ['letters as number', { ...valid, to: 'not-a-number' }, 400, 'validation_failed', 'to'],
    ['bad sender', { ...valid, from: 'This sender is far too long' }, 400, 'validation_failed', 'from'],
    ['unapproved sender ID', { ...valid, from: 'ACME' }, 422, 'sender_id_not_approved', 'from'],
    ['unverified from number', { ...valid, from: '+359888777666' }, 422, 'number_not_verified', 'from'],
    ['oversize message', { ...valid, message: 'x'.repeat(1531) }, 400, 'validation_failed', 'message'],
    ['oversize UCS-2 message', { ...valid, message: 'ж'.repeat(671) }, 400, 'validation_failed', 'message'],
    ['bad scheduled', { ...valid, scheduled: 'tomorrow' }, 400, 'validation_failed', 'scheduled'],
    [
      'scheduled too far',
      { ...valid, scheduled: '2099-01-01T00:00:00Z' },
      400,
      'validation_failed',
      'scheduled',
    ],
    ['bad dlrUrl', { ...valid, dlrUrl: 'ftp://example.com/x' }, 400, 'validation_failed', 'dlrUrl'],
  ])('%s → %i', async (_name, body, status, code, field) => {
    const response = await api('POST', '/sms', { body });
    expect(response.status).toBe(status);
    expect(response.json.error?.code).toBe(code);
    expect(response.json.error?.fields?.map((f) => f.field)).toContain(field);
  });

  it('answers a malformed JSON body with 400 and a JSON error', async () => {
    const response = await api('POST', '/sms', { body: '{"to": ' });
    expect(response.status).toBe(400);
    expect(response.json.error?.code).toBe('malformed_request');
  });
});

describe('GET /sms/{id}', () => {
  it('is 404 for an unknown id and for another account’s message, 400 for a malformed id', async () => {
    const { json } = await api('POST', '/sms', {
      body: { to: '+359888123459', from: '+359888000111', message: 'mine' },
    });
    const other = await platform.issueToken();
    expect((await api('GET', `/sms/${json.id}`, { token: other.token })).status).toBe(404);
    expect((await api('GET', '/sms/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const malformed = await api('GET', '/sms/nope');
    expect(malformed.status).toBe(400);
    expect(malformed.json.error?.fields?.[0]?.field).toBe('id');
  });
});

describe('scheduled messages', () => {
  it('are listed, not sent before their time, and sent after it', async () => {
    const scheduled = new Date(Date.now() + 4000).toISOString();
    const { status, json } = await api('POST', '/sms', {
      body: {
        to: '+359888123460',
        from: '+359888000111',
        message: 'later',
        scheduled,
        dlrUrl: 'https://example.com/dlr',
      },
    });
    expect(status).toBe(202);
    expect(json.status).toBe('scheduled');

    const day = scheduled.slice(0, 10);
    const listed = await api('GET', `/sms?scheduled=${day}`);
    expect(listed.status).toBe(200);
    expect(listed.json.items).toContainEqual({
      id: json.id,
      scheduled: new Date(scheduled).toISOString(),
      from: '+359888000111',
      to: '+359888123460',
      message: 'later',
      dlrUrl: 'https://example.com/dlr',
    });
    const other = await platform.issueToken();
    expect((await api('GET', '/sms', { token: other.token })).json.items).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(platform.sandbox.smpp.submitted.some((sms) => sms.destination === '359888123460')).toBe(false);

    const done = await messageStatus(json.id as string);
    expect(done.status).toBe('delivered');
    const sent = platform.sandbox.smpp.submitted.find((sms) => sms.destination === '359888123460');
    expect(sent && sent.at.getTime() >= Date.parse(scheduled)).toBe(true);
    expect((await api('GET', `/sms?scheduled=${day}`)).json.items).not.toContainEqual(
      expect.objectContaining({ id: json.id }),
    );
  });

  it('rejects a bad listing query', async () => {
    for (const query of ['scheduled=2026-13-45', 'page=0', 'size=1000']) {
      const response = await api('GET', `/sms?${query}`);
      expect(response.status).toBe(400);
      expect(response.json.error?.code).toBe('validation_failed');
    }
  });
});

describe('delivery reports', () => {
  it('POSTs a signed report to dlrUrl, retrying until it lands: one success, four attempts', async () => {
    const receiver = await startReceiver((attempt) => ({ status: attempt <= 3 ? 503 : 200 }));
    try {
      const { json } = await api('POST', '/sms', {
        body: { to: '+359888123461', from: '+359888000111', message: 'report me', dlrUrl: receiver.url },
      });
      await eventually(
        async () => (receiver.requests.length >= 4 ? true : undefined),
        20_000,
        'four attempts',
      );
      await new Promise((resolve) => setTimeout(resolve, 1000)); // no fifth attempt may follow
      expect(receiver.requests).toHaveLength(4);
      const report = JSON.parse(receiver.requests[3]!.body);
      expect(report).toMatchObject({
        type: 'message.status',
        data: { id: json.id, status: 'delivered', to: '+359888123461' },
      });

      const ids = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
      expect(ids.size).toBe(1); // one delivery, retried
      const signatures = new Set(receiver.requests.map((request) => request.headers['webhook-signature']));
      expect(signatures.size).toBeGreaterThan(1); // signed afresh on every attempt

      const { verifyWebhook } = await import('../../domain/webhooks/signature.ts');
      const endpoints = await api('GET', '/webhooks/endpoints');
      const endpoint = (endpoints.json.items as { url: string; secret: string }[]).find(
        (item) => item.url === receiver.url,
      );
      expect(endpoint).toBeDefined();
      const last = receiver.requests[3]!;
      expect(
        verifyWebhook(endpoint!.secret, last.headers as Record<string, string>, last.body, 300).valid,
      ).toBe(true);
      expect(
        verifyWebhook(
          endpoint!.secret,
          last.headers as Record<string, string>,
          last.body.replace('delivered', 'failed'),
          300,
        ).valid,
      ).toBe(false);

      const deliveries = await api('GET', `/webhooks/deliveries?subjectId=${json.id}`);
      const [delivery] = deliveries.json.items as { id: string; status: string }[];
      expect(delivery?.status).toBe('delivered');
      const detail = await api('GET', `/webhooks/deliveries/${delivery!.id}`);
      expect((detail.json.attempts as { statusCode: number }[]).map((attempt) => attempt.statusCode)).toEqual(
        [503, 503, 503, 200],
      );
    } finally {
      await receiver.stop();
    }
  });
});

describe('durability', () => {
  it('delivers once when the worker is stopped mid-flow and restarted', async () => {
    const receiver = await startReceiver();
    try {
      await platform.stopWorker();
      const { json } = await api('POST', '/sms', {
        body: { to: '+359888123462', from: '+359888000111', message: 'survive', dlrUrl: receiver.url },
      });
      expect((await api('GET', `/sms/${json.id}`)).json.status).toBe('accepted');
      await platform.startWorker();
      // Stop again right after the hand-over to the carrier, while the receipt is due.
      await eventually(async () =>
        platform.sandbox.smpp.submitted.some((sms) => sms.destination === '359888123462') ? true : undefined,
      );
      await platform.stopWorker();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await platform.startWorker();
      expect(await messageStatus(json.id as string)).toMatchObject({ status: 'delivered' });
      await eventually(async () => (receiver.requests.length >= 1 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(
        platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888123462'),
      ).toHaveLength(1);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await platform.startWorker();
      await receiver.stop();
    }
  });
});
