import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';

/**
 * An operator's sign-in at the identity provider the Temporal Web UI signs its users in with (OpenID
 * Connect), as the UI passes it to the codec server (`codec.passAccessToken`: `Authorization: Bearer
 * <token>`; decision 0081). The token is checked here against the provider's published keys (found
 * through its discovery document), its issuer, audience and lifetime; who may decode is the caller's
 * decision.
 */

export interface SignInSettings {
  /** The provider's issuer URL (its `/.well-known/openid-configuration` names the keys). */
  issuer: string;
  /** What the token's `aud` must hold: the UI's client id (ID tokens) or the API audience (access tokens). */
  audience: string;
}

/** Who signed in: the provider's subject, and the e-mail address when the provider vouches for it. */
export interface SignedIn {
  subject: string;
  email: string | undefined;
}

interface Provider {
  issuer: string;
  keys: JWTVerifyGetKey;
}

/** Each issuer's discovery is read once per process (its keys are refreshed by jose as they rotate). */
const providers = new Map<string, Promise<Provider>>();

async function discover(issuer: string): Promise<Provider> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`OpenID discovery of ${issuer} answered ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof document.issuer !== 'string' || typeof document.jwks_uri !== 'string') {
    throw new Error(`OpenID discovery of ${issuer} names no issuer or jwks_uri`);
  }
  return { issuer: document.issuer, keys: createRemoteJWKSet(new URL(document.jwks_uri)) };
}

function providerOf(issuer: string): Promise<Provider> {
  let provider = providers.get(issuer);
  if (!provider) {
    provider = discover(issuer);
    // A provider that could not be reached is asked again at the next request.
    provider.catch(() => providers.delete(issuer));
    providers.set(issuer, provider);
  }
  return provider;
}

/**
 * The operator a token signs in, or undefined when it is not a valid token of the provider for this
 * audience (bad signature, another issuer or audience, expired, not a JWT). The provider being
 * unreachable is thrown: an outage, not a refusal.
 */
export async function verifySignIn(settings: SignInSettings, token: string): Promise<SignedIn | undefined> {
  const provider = await providerOf(settings.issuer);
  try {
    const { payload } = await jwtVerify(token, provider.keys, {
      issuer: provider.issuer,
      audience: settings.audience,
      requiredClaims: ['sub', 'exp'],
    });
    const email =
      typeof payload.email === 'string' && payload.email_verified !== false ? payload.email : undefined;
    return { subject: payload.sub ?? '', email };
  } catch (error) {
    if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) return undefined;
    throw error;
  }
}
