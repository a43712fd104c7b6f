import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let operations: { method: string; path: string }[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  // Every operation the gateway documents, so a new endpoint cannot ship without the token check.
  // Those declaring `security: []` are the provider's callbacks, checked by its signature instead
  // (the chat-app webhook, decision 0062; tested in chatapp.test.ts).
  const document = (await (await fetch(`${platform.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.security?.length !== 0)
      .map(([method]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, (param) => (param === '{country}' ? 'BG' : randomUUID())),
      })),
  );
});
afterAll(async () => {
  await platform?.stop();
});

describe('messaging access token', () => {
  it('is required by every documented operation: missing or wrong → 401 with the error body', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    for (const { method, path } of operations) {
      for (const query of ['', '?at=at_not-a-real-token']) {
        const response = await fetch(`${platform.baseUrl}${path}${query}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expect(response.status, `${method} ${path}${query}`).toBe(401);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('unauthorized');
        expect(body.error.message).toMatch(/access token/);
      }
    }
  });

  it('of a revoked token is refused', async () => {
    const { revokeAccessToken } = await import('../../credentials/messaging/access-tokens.ts');
    const other = await platform.issueToken('Soon revoked');
    expect((await fetch(`${platform.baseUrl}/sms?at=${other.token}`)).status).toBe(200);
    await revokeAccessToken(platform.db, other.tokenId);
    expect((await fetch(`${platform.baseUrl}/sms?at=${other.token}`)).status).toBe(401);
  });
});
