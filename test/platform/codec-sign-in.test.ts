import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The production way to decode in the Web UI (decision 0081): the UI signs the operator in at an
 * OpenID Connect provider and passes the sign-in's token to the codec server (`codec.passAccessToken`:
 * `Authorization: Bearer <token>`), which checks it against the provider's published keys, issuer,
 * audience and lifetime, and decodes for CODEC_OPERATORS only. Here the provider is a small one on
 * loopback with a discovery document and a key set; no ADMIN_TOKEN is configured.
 */

const AUDIENCE = 'temporal-ui';
const OPERATOR = 'ops@example.com';
const UI_ORIGIN = 'https://temporal.example';
const TEXT = 'Applicant Marguerite Vanstone, 8801015544';

let platform: TestPlatform;
let provider: Server;
let issuer: string;
let signingKey: CryptoKey;
let otherKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  provider = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration')
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [jwk] }));
    else response.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  platform = await startTestPlatform({
    env: {
      CODEC_OIDC_ISSUER: issuer,
      CODEC_OIDC_AUDIENCE: AUDIENCE,
      CODEC_OPERATORS: `${OPERATOR}, auditor-subject-42`,
      TEMPORAL_UI_URL: UI_ORIGIN,
    },
  });
});
afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => provider?.close(resolve));
});

/** A sign-in token as the provider issues it (overrides change a claim, `key` signs with another key). */
function token(
  claims: JWTPayload = {},
  options: { key?: CryptoKey; expiresIn?: string; subject?: string; audience?: string } = {},
) {
  return new SignJWT({ email: OPERATOR, email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(options.audience ?? AUDIENCE)
    .setSubject(options.subject ?? 'operator-subject-1')
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? signingKey);
}

const plain = {
  metadata: { encoding: Buffer.from('json/plain').toString('base64') },
  data: Buffer.from(JSON.stringify({ text: TEXT })).toString('base64'),
};

/** A POST as the UI makes it, with the sign-in's token when given. */
const codec = (direction: 'encode' | 'decode', body: unknown, bearer?: string) =>
  fetch(`${platform.apiUrl}/codec/${direction}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-namespace': 'default',
      origin: UI_ORIGIN,
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });

describe('the codec server with the Web UI sign-in', () => {
  it("decodes for a signed-in operator, and nothing for anyone else's browser", async () => {
    const operator = await token();
    const encoded = await codec('encode', { payloads: [plain] }, operator);
    expect(encoded.status).toBe(200);
    const sealed = await encoded.json();
    expect(JSON.stringify(sealed)).not.toContain(Buffer.from(TEXT).toString('base64').slice(0, 12));

    const decoded = await codec('decode', sealed, operator);
    expect(decoded.status).toBe(200);
    expect(await decoded.json()).toEqual({ payloads: [plain] });
    // A sign-in without an e-mail counts by its subject: a listed one decodes, another is refused.
    const listed = await token({ email: undefined }, { subject: 'auditor-subject-42' });
    expect((await codec('decode', sealed, listed)).status).toBe(200);
    expect((await codec('decode', sealed, await token({ email: undefined }))).status).toBe(403);

    const refusals: [string, string | undefined, number][] = [
      ['an unauthenticated browser', undefined, 401],
      ['someone else signed in', await token({ email: 'someone@example.com' }), 403],
      ['an e-mail the provider has not verified', await token({ email_verified: false }), 403],
      ['a token of another audience', await token({}, { audience: 'another-app' }), 401],
      ['a token signed by another key', await token({}, { key: otherKey }), 401],
      ['an expired token', await token({}, { expiresIn: '-1m' }), 401],
      ['not a token at all', 'not-a-jwt', 401],
    ];
    for (const [who, bearer, status] of refusals) {
      const answer = await codec('decode', sealed, bearer);
      expect(answer.status, who).toBe(status);
      expect(await answer.text(), who).not.toContain(plain.data);
    }
  });

  it("lets the UI's origin send its sign-in in the browser (CORS), and no other origin", async () => {
    const preflight = (origin: string) =>
      fetch(`${platform.apiUrl}/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,authorization-extras,content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization-extras');
    expect(
      (await preflight('https://attacker.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });
});
