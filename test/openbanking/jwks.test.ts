import { eq } from 'drizzle-orm';
import { compactVerify, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, signJws, TOKEN_ISSUER } from '../../credentials/openbanking/jws.ts';
import { obSigningKeys } from '../../db/schema/openbanking.ts';
import {
  type EnrolledUser,
  enrolUser,
  type ObCall,
  openBankingClient,
} from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

const ADMIN_TOKEN = 'jwks-test-admin-token-0123456789abcdef';

let platform: TestPlatform;
let call: ObCall;
let user: EnrolledUser;
let jwksUrl: URL;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { ADMIN_TOKEN, OPENBANKING_USER_TOKEN_TTL: '10m', OPENBANKING_SIGNING_KEY_RETENTION: '4s' },
  });
  call = openBankingClient(platform.openBanking.url);
  const agent = await platform.openBanking.createAgent();
  user = await enrolUser(call, agent.agentHash);
  jwksUrl = new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`);
});
afterAll(async () => {
  await platform?.stop();
});

type Jwks = { keys: { kid: string; alg: string; use: string; kty: string; crv: string; d?: string }[] };

const userToken = async () => {
  const { status, body } = await call<{ token: string; kid: string; expiresIn: number; expiresAt: string }>(
    'POST',
    '/api/8/usertoken',
    { headers: { 'x-user-hash': user.userHash } },
  );
  expect(status).toBe(200);
  return body;
};

const rotate = async () => {
  const response = await fetch(`${platform.apiUrl}/admin/openbanking/signing-keys/rotate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { kid: string; retiredKid?: string };
};

describe('JWKS', () => {
  it('publishes the public signing keys at both spec paths, version 6 only', async () => {
    const first = await call<Jwks>('GET', '/api/6/.well-known/jwks.json');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of first.body.keys) {
      expect(key).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: expect.stringMatching(/^obk_/),
      });
      expect(key.d).toBeUndefined(); // never the private part
    }
    const second = await call<Jwks>('GET', '/api/6/.well-known/jwks.json2');
    expect(second.body).toEqual(first.body);
    for (const version of [7, 8, 9]) {
      expect((await call('GET', `/api/${version}/.well-known/jwks.json`)).status).toBe(404);
    }
  });

  it('verifies a user token through the published key set (jose createRemoteJWKSet)', async () => {
    const issued = await userToken();
    const { payload, protectedHeader } = await jwtVerify(issued.token, createRemoteJWKSet(jwksUrl), {
      issuer: TOKEN_ISSUER,
      audience: AUDIENCE.userToken,
      algorithms: ['ES256'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: issued.kid, typ: 'JWT' });
    expect(payload.sub).toBe(user.userId);
    expect(payload.agent).toBe(user.agentId);
    expect(typeof payload.jti).toBe('string');
    // Lifetime: OPENBANKING_USER_TOKEN_TTL (10 minutes here).
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(issued.expiresIn).toBeGreaterThanOrEqual(599);
    expect(new Date(issued.expiresAt).getTime()).toBe(payload.exp! * 1000);
  });

  it('keeps the private keys encrypted at rest', async () => {
    const rows = await platform.db.select().from(obSigningKeys);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) {
      expect(row.privateKeyEncrypted.split('.')).toHaveLength(3);
      expect(row.privateKeyEncrypted).not.toContain('"d"');
      expect(() => JSON.parse(row.privateKeyEncrypted)).toThrow();
      expect(row.publicJwk).not.toHaveProperty('d');
    }
  });

  it('rotation keeps tokens of the old key verifiable until the retention period ends', async () => {
    const before = await userToken();
    const rotated = await rotate();
    expect(rotated.retiredKid).toBe(before.kid);
    expect(rotated.kid).not.toBe(before.kid);

    const after = await userToken();
    expect(after.kid).toBe(rotated.kid);
    expect(decodeProtectedHeader(after.token).kid).toBe(rotated.kid);

    const published = await call<Jwks>('GET', '/api/6/.well-known/jwks.json');
    expect(published.body.keys.map((key) => key.kid)).toEqual(
      expect.arrayContaining([before.kid, after.kid]),
    );
    // A client that cached the set before the rotation refetches on the unknown kid.
    const remote = createRemoteJWKSet(jwksUrl, { cooldownDuration: 0 });
    const options = { issuer: TOKEN_ISSUER, audience: AUDIENCE.userToken };
    expect((await jwtVerify(before.token, remote, options)).payload.sub).toBe(user.userId);
    expect((await jwtVerify(after.token, remote, options)).payload.sub).toBe(user.userId);
    // Both keep working as credentials.
    for (const token of [before.token, after.token]) {
      const status = await call('GET', '/api/8/id/status', { headers: { authorization: `Bearer ${token}` } });
      expect(status.status).toBe(200);
    }

    // After OPENBANKING_SIGNING_KEY_RETENTION (4 s here) the retired key leaves the set; its tokens stop working.
    await eventually(
      async () => {
        const { body } = await call<Jwks>('GET', '/api/6/.well-known/jwks.json');
        return body.keys.some((key) => key.kid === before.kid) ? undefined : true;
      },
      15_000,
      'the retired key to leave the JWKS',
    );
    const old = await call('GET', '/api/8/id/status', {
      headers: { authorization: `Bearer ${before.token}` },
    });
    expect(old.status).toBe(401);
    const current = await call('GET', '/api/8/id/status', {
      headers: { authorization: `Bearer ${after.token}` },
    });
    expect(current.status).toBe(200);
    const [row] = await platform.db.select().from(obSigningKeys).where(eq(obSigningKeys.kid, before.kid));
    expect(row?.status).toBe('retired');
  });

  it('rotation needs the operator token', async () => {
    const response = await fetch(`${platform.apiUrl}/admin/openbanking/signing-keys/rotate`, {
      method: 'POST',
    });
    expect(response.status).toBe(401);
  });

  it('signs payloads (webhooks) as JWS, attached or detached, verifiable with the published keys', async () => {
    const body = JSON.stringify({ event: 'consent.finished', state: 'st_123' });
    const remote = createRemoteJWKSet(jwksUrl, { cooldownDuration: 0 });

    const attached = await signJws(platform.db, platform.config, body);
    const verified = await compactVerify(attached.jws, remote);
    expect(new TextDecoder().decode(verified.payload)).toBe(body);
    expect(verified.protectedHeader.kid).toBe(attached.kid);

    const detached = await signJws(platform.db, platform.config, body, { detached: true });
    const [header, empty, signature] = detached.jws.split('.');
    expect(empty).toBe('');
    const rebuilt = `${header}.${Buffer.from(body).toString('base64url')}.${signature}`;
    expect(new TextDecoder().decode((await compactVerify(rebuilt, remote)).payload)).toBe(body);
    const tampered = `${header}.${Buffer.from(`${body} `).toString('base64url')}.${signature}`;
    await expect(compactVerify(tampered, remote)).rejects.toThrow();
  });
});
