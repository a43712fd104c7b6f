import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expTimeIn, signedPacket } from '../collect/epay-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

describe('platform HTTP surface', () => {
  it('reports health once database, Temporal and the worker are ready', async () => {
    const response = await fetch(`${platform.apiUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown route 404 route_not_found and a wrong method 405 with Allow, as JSON', async () => {
    const unknown = await fetch(`${platform.apiUrl}/nowhere`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    for (const [method, path, allow] of [
      ['DELETE', `/messaging/sms?at=${platform.token}`, 'GET, HEAD, POST'],
      ['PUT', `/messaging/rates?at=${platform.token}`, 'GET, HEAD'],
    ] as const) {
      const response = await fetch(`${platform.apiUrl}${path}`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
  });

  it('answers a path under a service that no operation serves 404 route_not_found', async () => {
    const route = await fetch(`${platform.apiUrl}/lending/PublicApi/v7-12/Customer/Nowhere`);
    expect(route.status).toBe(404);
    expect(((await route.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });

  it('starts workflows eagerly: the in-process worker gets the first task with the start (issue 24)', async () => {
    const handle = await platform.client.workflow.start('refreshBankDirectory', {
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      workflowId: `eager-start-check-${Date.now()}`,
    });
    expect(handle.eagerlyStarted).toBe(true);
    await handle.result();
  });

  it('refuses an oversize body with 413 and a body of another media type with 415, as JSON errors', async () => {
    const url = `${platform.baseUrl}/sms?at=${platform.token}`;
    const oversize = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+359888123456', from: '+359888000111', message: 'x'.repeat(2_000_000) }),
    });
    expect(oversize.status).toBe(413);
    expect(((await oversize.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    const plain = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'to=+359888123456',
    });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
  });

  it('publishes an OpenAPI 3.1 description with every messaging operation, and a reference page', async () => {
    const document = (await (await fetch(`${platform.apiUrl}/messaging/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const operation of [
      'GET /sms',
      'POST /sms',
      'POST /chatapp',
      'POST /hlr',
      'POST /senderId',
      'POST /senderId/confirm/{id}',
      'GET /mccmnc/{country}',
      'POST /numberCorrection',
      'GET /operators/{operatorId}',
      'GET /prefixes/{country}',
      'GET /rates/',
    ]) {
      expect(operations).toContain(operation);
    }
    const page = await fetch(`${platform.apiUrl}/messaging/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/assets/swagger-ui/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN
    const asset = await fetch(`${platform.apiUrl}/assets/swagger-ui/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
  });
});

describe('security headers (hono/secure-headers)', () => {
  const csp = (response: Response) => response.headers.get('content-security-policy') ?? '';

  it('gives the reference pages a CSP without inline script, and no inline script to need one', async () => {
    for (const service of ['messaging', 'collect', 'openbanking']) {
      const page = await fetch(`${platform.apiUrl}/${service}/docs`);
      expect(page.status).toBe(200);
      expect(csp(page)).toContain("default-src 'none'");
      expect(csp(page)).toContain("script-src 'self'");
      expect(csp(page)).toContain("frame-ancestors 'none'");
      expect(csp(page)).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await page.text();
      expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
      for (const src of html.match(/(?<=<script src=")[^"]+/g) ?? []) {
        expect((await fetch(`${platform.apiUrl}${src}`)).status).toBe(200);
      }
    }
  });

  it('gives the open-banking pages the default CSP', async () => {
    for (const [method, path] of [
      ['POST', '/openbanking/redirect/app/state/unknown-state'],
      ['GET', '/openbanking/ais/start?token=unknown'],
    ] as const) {
      const page = await fetch(`${platform.apiUrl}${path}`, { method, redirect: 'manual' });
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(csp(page)).toContain("default-src 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('keeps the card page its own CSP with its nonce, and adds the other headers', async () => {
    const merchant = await platform.createMerchant();
    const packet = signedPacket(
      {
        MIN: merchant.min,
        INVOICE: String(Date.now()),
        AMOUNT: '12.30',
        EXP_TIME: expTimeIn(3_600_000),
        ENCODING: 'utf-8',
      },
      merchant.secret,
    );
    const page = await fetch(`${platform.apiUrl}/collect/`, {
      method: 'POST',
      body: new URLSearchParams({ PAGE: 'credit_paydirect', ...packet }),
    });
    expect(page.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(csp(page))?.[1];
    expect(nonce).toBeDefined();
    expect(await page.text()).toContain(`nonce="${nonce}"`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  });

  it('answers JSON and text with nosniff', async () => {
    for (const path of ['/health', '/nowhere', '/messaging/openapi.json', '/collect/office/reg_bill.cgi']) {
      const response = await fetch(`${platform.apiUrl}${path}`);
      expect({ path, nosniff: response.headers.get('x-content-type-options') }).toEqual({
        path,
        nosniff: 'nosniff',
      });
    }
  });
});
