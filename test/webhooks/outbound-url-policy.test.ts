import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingActivities } from '../../activities/collect/billing.ts';
import { createMerchantNotificationActivities } from '../../activities/collect/merchant-notifications.ts';
import { createWebhookActivities } from '../../activities/webhooks/index.ts';
import {
  collectBillingAttempts,
  collectNotificationAttempts,
  collectNotifications,
} from '../../db/schema/collect-notifications.ts';
import { checkOutboundUrl, outboundUrlPolicy } from '../../domain/outbound-url.ts';
import type { Config } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { type ErrorBody, openBankingClient } from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The outbound-URL policy (decision 0027) where tenants hand in URLs (registration answers 400 naming
 * the field) and where the platform calls them (refused at connect time on the resolved address).
 */
const ADMIN_TOKEN = 'admin-token-of-the-outbound-url-policy-test';
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
});
afterAll(async () => {
  await platform?.stop();
});

const messaging = messagingClient(() => platform);
const fieldsOf = (body: Partial<ErrorBody> | undefined) =>
  body?.error?.fields?.map((field) => field.field) ?? [];

const METADATA = 'http://169.254.169.254/latest/meta-data/';

describe('registration: a URL that points inside is refused with 400 naming the field', () => {
  it('dlrUrl of POST /sms and /chatapp, callBackUrl of POST /hlr', async () => {
    for (const path of ['/sms', '/chatapp']) {
      for (const dlrUrl of [
        METADATA,
        'http://10.0.0.7/dlr',
        'http://[::ffff:a9fe:a9fe]/',
        'http://100.64.1.1/',
      ]) {
        const answer = await messaging('POST', path, {
          body: { to: '+359888123456', from: '+359888000000', message: 'hi', dlrUrl },
        });
        expect(answer.status, `${path} ${dlrUrl}`).toBe(400);
        expect(fieldsOf(answer.json), `${path} ${dlrUrl}`).toEqual(['dlrUrl']);
      }
    }
    const hlr = await messaging('POST', '/hlr', { body: { number: '+359888123456', callBackUrl: METADATA } });
    expect(hlr.status).toBe(400);
    expect(fieldsOf(hlr.json)).toEqual(['callBackUrl']);
    // Sandbox mode allows loopback by default: the sandbox receivers live there.
    const allowed = await messaging('POST', '/hlr', {
      body: { number: '+359888123456', callBackUrl: 'http://127.0.0.1:9/hlr' },
    });
    expect(allowed.status).toBe(202);
  });

  it('url and redirectUrl of createhook, redirectUrl of PUT redirect', async () => {
    const call = openBankingClient(platform.openBanking.url);
    const agent = await platform.openBanking.createAgent('Policy agent');
    const asAgent = { 'x-agent-hash': agent.agentHash };
    for (const [body, field] of [
      [{ url: METADATA }, 'url'],
      [{ url: 'https://agent.example.com/hook', redirectUrl: 'http://192.168.0.1/done' }, 'redirectUrl'],
    ] as const) {
      const answer = await call('POST', '/api/8/createhook', { headers: asAgent, body });
      expect(answer.status, field).toBe(400);
      expect(fieldsOf(answer.body), field).toEqual([field]);
    }
    const created = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: asAgent,
      body: { url: 'https://agent.example.com/hook' },
    });
    expect(created.status).toBe(201);
    const redirect = await call(
      'PUT',
      `/api/8/redirect?hookhash=${encodeURIComponent(created.body.hookHash)}&redirectUrl=${encodeURIComponent('http://[fd00::1]/back')}`,
      { headers: asAgent },
    );
    expect(redirect.status).toBe(400);
    expect(fieldsOf(redirect.body as Partial<ErrorBody>)).toEqual(['redirectUrl']);
  });

  it('notifyUrl and billingUrl of the admin merchant endpoint', async () => {
    for (const field of ['notifyUrl', 'billingUrl']) {
      const response = await fetch(`${platform.apiUrl}/admin/collect/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Inside shop', [field]: METADATA }),
      });
      expect(response.status, field).toBe(400);
      expect(fieldsOf((await response.json()) as ErrorBody), field).toEqual([field]);
    }
  });
});

describe('attempt time: a name that resolves inside is refused on its resolved address', () => {
  /** The platform's configuration in production mode (no allow-list): nothing internal. */
  const production = (): Config => ({
    ...platform.config,
    PLATFORM_MODE: 'production',
    OUTBOUND_URL_ALLOWLIST: undefined,
    // Production always has it (start-up requires it): the engine encrypts signing secrets with it.
    WEBHOOK_SECRET_KEY: 'ef'.repeat(32),
  });
  /** Sandbox mode with an explicit empty allow-list (OUTBOUND_URL_ALLOWLIST=none). */
  const noneListed = (): Config => ({ ...platform.config, OUTBOUND_URL_ALLOWLIST: [] });
  const logger = createLogger('silent');

  it('a webhook to http://localhost:<port> passes registration and is refused when attempted (production)', async () => {
    const receiver = await startReceiver();
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      expect(checkOutboundUrl(outboundUrlPolicy(production()), url).ok).toBe(true);

      const activities = createWebhookActivities({ db: platform.db, config: production(), logger });
      const subjectId = randomUUID();
      const registered = await activities.registerWebhookDelivery({
        service: 'messaging',
        ownerId: platform.accountId,
        url,
        eventType: 'message.status',
        eventId: `sms-${subjectId}.delivered`,
        subjectId,
        payload: { id: subjectId, status: 'delivered' },
      });
      const outcome = await new MockActivityEnvironment().run(activities.attemptWebhookDelivery, {
        deliveryId: registered.deliveryId,
        attempt: 1,
        format: 'standard-webhooks' as const,
        requestTimeoutMs: 2000,
      });
      // Permanent: the delivery workflow ends it at once instead of retrying for days.
      expect(outcome).toEqual({ ok: false, statusCode: null, retryAfterMs: null, permanent: true });
      expect(receiver.requests).toHaveLength(0);

      // What the tenant reads: the coarse outcome, no address, no port.
      const response = await fetch(
        `${platform.baseUrl}/webhooks/deliveries/${registered.deliveryId}?at=${encodeURIComponent(platform.token)}`,
      );
      const delivery = (await response.json()) as {
        attempts: { statusCode: number | null; error: string }[];
      };
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: 'refused_by_policy' });
    } finally {
      await receiver.stop();
    }
  });

  it('a merchant notification to a notifyUrl that resolves to loopback is refused when attempted', async () => {
    const receiver = await startReceiver();
    try {
      const notifyUrl = receiver.url.replace('127.0.0.1', 'localhost');
      const merchant = await platform.createMerchant({ notifyUrl });
      const id = `ntf_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      await platform.db.insert(collectNotifications).values({
        id,
        merchantMin: merchant.min,
        invoice: '7001',
        idn: '7001',
        status: 'PAID',
        delivery: 'pending',
      });
      const activities = createMerchantNotificationActivities({
        db: platform.db,
        config: noneListed(),
        logger,
      });
      const outcomes = await new MockActivityEnvironment().run(activities.attemptNotificationBatch, {
        merchantMin: merchant.min,
        batchId: randomUUID(),
        items: [{ notificationId: id, attempt: 1 }],
        requestTimeoutMs: 2000,
      });
      // Permanent: the merchant's notification workflow fails it at once instead of retrying for days.
      expect(outcomes).toEqual([
        { notificationId: id, outcome: 'transport', retryAfterMs: null, permanent: true },
      ]);
      expect(receiver.requests).toHaveLength(0);
      const [attempt] = await platform.db
        .select()
        .from(collectNotificationAttempts)
        .where(eq(collectNotificationAttempts.notificationId, id));
      expect(attempt).toMatchObject({ httpStatus: null, error: 'refused_by_policy' });
    } finally {
      await receiver.stop();
    }
  });

  it('a billing callback to a billingUrl that resolves to loopback is refused when attempted', async () => {
    const receiver = await startReceiver();
    try {
      const billingUrl = receiver.url.replace('127.0.0.1', 'localhost');
      const merchant = await platform.createMerchant({ billingUrl, billingIdnPrefix: '98' });
      const activities = createBillingActivities({ db: platform.db, config: noneListed(), logger });
      const tid = randomUUID();
      const payment = {
        tid,
        idn: '98123',
        merchantMin: merchant.min,
        action: 'PAY' as const,
        date: '20260101120000',
      };
      // Non-retryable: the office is answered now, not after the check's retries.
      await expect(new MockActivityEnvironment().run(activities.checkBill, payment)).rejects.toMatchObject({
        message: '/pay/init: refused_by_policy',
        nonRetryable: true,
      });
      // The confirmation, too, is permanent: the billing workflow fails it at once.
      const confirmed = await new MockActivityEnvironment().run(activities.confirmBill, {
        payment,
        attempt: 1,
        totalMinor: 1000,
        invoices: undefined,
      });
      expect(confirmed).toEqual({ kind: 'unavailable', error: 'refused_by_policy', permanent: true });
      const [attempt] = await platform.db
        .select()
        .from(collectBillingAttempts)
        .where(eq(collectBillingAttempts.tid, tid))
        .orderBy(collectBillingAttempts.attemptedAt);
      expect(attempt).toMatchObject({ phase: 'init', httpStatus: null, error: 'refused_by_policy' });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });
});
