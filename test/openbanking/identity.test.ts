import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createOpenBankingClient } from '../../clients/src/openbanking.ts';
import { platformServices } from '../../cmd/services.ts';
import { obCredentials } from '../../db/schema/openbanking.ts';
import { createLogger } from '../../platform/logger.ts';
import {
  type EnrolledUser,
  type ErrorBody,
  enrolUser,
  type ObCall,
  type ObResponse,
  openBankingClient,
} from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let call: ObCall;
let agentA: { agentId: string; agentHash: string; publicHash: string };
let agentB: { agentId: string; agentHash: string; publicHash: string };
let userA: EnrolledUser;
let userB: EnrolledUser;
let adminHash: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { OPENBANKING_USER_TOKEN_TTL: '2s' } });
  call = openBankingClient(platform.openBanking.url);
  agentA = await platform.openBanking.createAgent('Agent A');
  agentB = await platform.openBanking.createAgent('Agent B');
  userA = await enrolUser(call, agentA.agentHash);
  userB = await enrolUser(call, agentB.agentHash);
  adminHash = (await platform.openBanking.createAdminHash()).adminHash;
});
afterAll(async () => {
  await platform?.stop();
});

/**
 * Operations that need no credential: enrolment (sandbox), signup (agent hash may be in the body), the
 * key set, the bank callback and public bank notices. Anything else must refuse a caller without one.
 */
const PUBLIC_OPERATIONS = [
  /^POST \/api\/\d\/signup\/agent$/,
  /^POST \/api\/\d\/signup$/,
  /^GET \/api\/6\/\.well-known\/jwks\.json2?$/,
  /^GET \/api\/8\/reports\/bank-maintenance$/,
  /^POST \/redirect\/\{app\}\/state\/\{state\}$/,
  /^GET \/redirect\/\{app\}\/state\/\{state\}$/,
  // The AIS e-mail link's page: its credential is the signed token in the link (or the form).
  /^(GET|POST) \/ais\/start$/,
];

interface DocumentedOperation {
  method: string;
  path: string;
  isPublic: boolean;
}

async function documentedOperations(): Promise<DocumentedOperation[]> {
  const { body } = await call<{
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  }>('GET', '/openapi.json');
  return Object.entries(body.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      isPublic: (operation.security ?? []).some((alternative) => Object.keys(alternative).length === 0),
    })),
  );
}

const fill = (path: string) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === 'iban' ? 'BG80BNBG96611020345678' : `x-${name}`,
  );

describe('access matrix', () => {
  it('every documented operation without its credentials is 401 with the error body, before validation', async () => {
    const operations = await documentedOperations();
    expect(operations.length).toBeGreaterThanOrEqual(30);
    for (const { method, path, isPublic } of operations) {
      const name = `${method} ${path}`;
      if (isPublic) {
        expect(
          PUBLIC_OPERATIONS.some((pattern) => pattern.test(name)),
          `${name} is documented as public`,
        ).toBe(true);
        continue;
      }
      // An invalid body too: the credential is checked first, so nothing is learnt about the request.
      const response = await call(method, fill(path), method === 'GET' ? {} : { rawBody: '{"bad":' });
      expect(response.status, name).toBe(401);
      expect(response.body.error?.code, name).toBe('unauthorized');
    }
  });

  it('every documented operation refuses forged or wrong-kind hashes and tokens with 401', async () => {
    const forged = {
      'x-agent-hash': 'agent_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'x-user-hash': 'user_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'x-public-hash': 'public_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'x-admin-hash': 'admin_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.AAAA',
    };
    // Real hashes, each sent in another kind's header.
    const swapped = {
      'x-agent-hash': userA.userHash,
      'x-user-hash': agentA.agentHash,
      'x-public-hash': agentA.agentHash,
      'x-admin-hash': agentA.agentHash,
    };
    for (const { method, path, isPublic } of await documentedOperations()) {
      if (isPublic) continue;
      for (const headers of [forged, swapped]) {
        const response = await call(method, fill(path), {
          headers,
          ...(method === 'GET' ? {} : { body: {} }),
        });
        expect(response.status, `${method} ${path} ${JSON.stringify(Object.keys(headers))}`).toBe(401);
      }
    }
  });

  it('another agent’s user is 404 and never data', async () => {
    const hookOfB = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: { 'x-user-hash': userB.userHash },
      body: { url: 'https://b.example/hook' },
    });
    const attempts: [string, Promise<ObResponse<Partial<ErrorBody>>>][] = [
      [
        'DELETE agent/user',
        call('DELETE', '/api/8/agent/user', {
          headers: { 'x-agent-hash': agentA.agentHash, 'x-user-hash': userB.userHash },
        }),
      ],
      [
        'POST kyc/update',
        call('POST', '/api/8/kyc/update', {
          headers: { 'x-agent-hash': agentA.agentHash },
          body: { userId: userB.userId, status: 'VERIFIED' },
        }),
      ],
      [
        'POST agent/ais/email',
        call('POST', '/api/8/agent/ais/email', {
          headers: { 'x-agent-hash': agentA.agentHash, 'x-user-hash': userB.userHash },
        }),
      ],
      [
        'POST cgate/consents-request',
        call('POST', '/api/cgate/consents-request', {
          headers: { 'x-admin-hash': adminHash, 'x-agent-hash': agentA.agentHash },
          body: { userHash: userB.userHash },
        }),
      ],
      [
        'PUT redirect (agent)',
        call('PUT', `/api/8/redirect?hookhash=${hookOfB.body.hookHash}&redirectUrl=https%3A%2F%2Fa.example`, {
          headers: { 'x-agent-hash': agentA.agentHash },
        }),
      ],
      [
        'PUT redirect (user)',
        call('PUT', `/api/8/redirect?hookhash=${hookOfB.body.hookHash}&redirectUrl=https%3A%2F%2Fa.example`, {
          headers: { 'x-user-hash': userA.userHash },
        }),
      ],
    ];
    for (const [name, attempt] of attempts) {
      const response = await attempt;
      expect(response.status, name).toBe(404);
      expect(response.body.error?.code, name).toBe('not_found');
      expect(JSON.stringify(response.body), name).not.toContain(userB.userId);
    }
    // Lists and checks of agent A simply do not contain B's user.
    const check = await call('POST', '/api/8/agent/user/check', {
      headers: { 'x-agent-hash': agentA.agentHash },
      body: { email: userB.email, userHash: userB.userHash },
    });
    expect(check.body).toMatchObject({ registered: false, userId: null, hashMatches: false });
    const list = await call('GET', `/api/8/agent/users?text=${encodeURIComponent(userB.email)}`, {
      headers: { 'x-agent-hash': agentA.agentHash },
    });
    expect(list.body).toMatchObject({ total: 0, items: [] });
    // B's user is untouched.
    const status = await call('GET', '/api/8/id/status', { headers: { 'x-user-hash': userB.userHash } });
    expect(status.body).toMatchObject({ userId: userB.userId, status: 'NOT_STARTED' });
  });
});

describe('identity hashes', () => {
  it('are random, prefixed by kind and stored only as SHA-256 digests', async () => {
    const rows = await platform.db.select().from(obCredentials);
    const stored = JSON.stringify(rows);
    for (const hash of [agentA.agentHash, agentA.publicHash, userA.userHash, adminHash]) {
      expect(hash).toMatch(/^(agent|public|user|admin)_[A-Za-z0-9_-]{43}$/);
      expect(stored).not.toContain(hash);
      expect(stored).toContain(createHash('sha256').update(hash).digest('hex'));
    }
    expect(new Set([agentA.agentHash, agentB.agentHash, userA.userHash, userB.userHash]).size).toBe(4);
  });
});

describe('user tokens as credentials', () => {
  it('are accepted as Authorization: Bearer where x-user-hash is, and expire after OPENBANKING_USER_TOKEN_TTL', async () => {
    const issued = await call<{ token: string; expiresIn: number }>('POST', '/api/6/usertoken', {
      headers: { 'x-user-hash': userA.userHash },
    });
    expect(issued.status).toBe(200);
    expect(issued.body.expiresIn).toBeLessThanOrEqual(2);
    // Version 8's calls through the typed client (clients/, decision 0058), as the bearer of a token.
    const withToken = (token: string) =>
      createOpenBankingClient(platform.apiUrl, { userToken: token }).GET('/api/8/id/status');
    expect((await withToken(issued.body.token)).data?.userId).toBe(userA.userId);

    // A token cannot mint another: usertoken wants the hash itself.
    const minted = await createOpenBankingClient(platform.apiUrl, { userToken: issued.body.token }).POST(
      '/api/8/usertoken',
    );
    expect(minted.response.status).toBe(401);
    expect(minted.error?.error.code).toBe('unauthorized');
    // A tampered signature is refused.
    const [header, payload, signature] = issued.body.token.split('.');
    const flipped = `${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
    expect((await withToken(`${header}.${payload}.${flipped}`)).response.status).toBe(401);
    // Another signed token of the gateway (an AIS link, another audience) is not a user token.
    const email = await createOpenBankingClient(platform.apiUrl, { userHash: userA.userHash }).POST(
      '/api/8/agent/ais/email',
    );
    const linkToken = new URL(email.data?.link ?? '').searchParams.get('token')!;
    expect((await withToken(linkToken)).response.status).toBe(401);

    await eventually(
      async () => ((await withToken(issued.body.token)).response.status === 401 ? true : undefined),
      10_000,
      'the token to expire',
    );
  });
});

describe('signup/agent in production', () => {
  it('requires x-admin-hash', async () => {
    const config = { ...platform.config, PLATFORM_MODE: 'production' as const };
    const app = createApp(
      { db: platform.db, temporal: platform.client, config, logger: createLogger('silent') },
      async () => [],
      platformServices,
    );
    const enrol = (headers: Record<string, string>) =>
      app.request('/openbanking/api/8/signup/agent', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'Production partner' }),
      });
    const anonymous = await enrol({});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await enrol({ 'x-admin-hash': agentA.agentHash })).status).toBe(401);
    expect((await enrol({ 'x-admin-hash': adminHash })).status).toBe(201);
  });
});
