import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The state of one sandbox bank's OAuth2 authorisation server (decision 0067): its authorization codes
 * and access/refresh tokens, kept as SHA-256 digests; the PKCE check compares digests in constant time.
 * Its HTTP endpoints are in oauth2-server.ts.
 */

/** The authorisation request that opened a consent's SCA page. */
export interface OAuthAuthorisationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
}

interface IssuedCode extends OAuthAuthorisationRequest {
  consentId: string;
  expiresAt: number;
}

const digestOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');
/** RFC 7636: a code verifier is 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const OAUTH_CODE_TTL_MS = 60_000;

export type BearerCheck = 'ok' | 'missing' | 'invalid' | 'expired';

/** The codes and tokens of one bank's authorisation server (in memory, as the rest of the sandbox). */
export class SandboxOAuthServer {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, { consentId: string; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, { consentId: string; clientId: string }>();
  /** `expires_in` of new access tokens (the sandbox control PUT /{code}/sandbox/oauth/token-ttl). */
  accessTokenTtlSeconds = 3600;
  /**
   * What the bank received and issued, in clear, for tests to witness (that the gateway keeps none of it
   * in clear): the sandbox only, a real bank keeps no such list.
   */
  readonly witnessed: {
    consentId: string;
    code?: string;
    codeVerifier?: string;
    accessToken: string;
    refreshToken: string;
  }[] = [];

  issueCode(consentId: string, request: OAuthAuthorisationRequest, now = Date.now()): string {
    const code = newSecret();
    this.codes.set(digestOf(code), {
      ...request,
      consentId,
      expiresAt: now + OAUTH_CODE_TTL_MS,
    });
    return code;
  }

  /** The code's consent when code, client, redirect URI and verifier match; the code is used up then. */
  redeemCode(
    input: { code: string; clientId: string; redirectUri: string; codeVerifier: string },
    now = Date.now(),
  ): { consentId: string } | { error: string } {
    const key = digestOf(input.code);
    const issued = this.codes.get(key);
    if (!issued || issued.expiresAt <= now) return { error: 'the code is unknown, used or expired' };
    if (issued.clientId !== input.clientId || issued.redirectUri !== input.redirectUri)
      return { error: 'client_id or redirect_uri differ from the authorisation request' };
    if (!VERIFIER.test(input.codeVerifier)) return { error: 'code_verifier is malformed' };
    const challenge = createHash('sha256').update(input.codeVerifier).digest('base64url');
    if (!timingSafeEqual(Buffer.from(challenge), Buffer.from(issued.codeChallenge)))
      return { error: 'code_verifier does not match the code_challenge' };
    this.codes.delete(key);
    return { consentId: issued.consentId };
  }

  issueTokens(consentId: string, clientId: string, refreshToken: string | null, now = Date.now()) {
    const accessToken = newSecret();
    this.accessTokens.set(digestOf(accessToken), {
      consentId,
      expiresAt: now + this.accessTokenTtlSeconds * 1000,
    });
    const refresh = refreshToken ?? newSecret();
    this.refreshTokens.set(digestOf(refresh), { consentId, clientId });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.accessTokenTtlSeconds,
      refresh_token: refresh,
      scope: `AIS:${consentId}`,
    };
  }

  refreshTokenOf(refreshToken: string, clientId: string): { consentId: string } | undefined {
    const found = this.refreshTokens.get(digestOf(refreshToken));
    return found && found.clientId === clientId ? { consentId: found.consentId } : undefined;
  }

  checkBearer(consentId: string, authorization: string | undefined, now = Date.now()): BearerCheck {
    const token = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? '')?.[1];
    if (!token) return 'missing';
    const found = this.accessTokens.get(digestOf(token));
    if (!found || found.consentId !== consentId) return 'invalid';
    return found.expiresAt <= now ? 'expired' : 'ok';
  }

  /** Test control: the consent's access tokens expire now (and its refresh tokens go, when asked). */
  expire(consentId: string, refreshToo: boolean): void {
    for (const token of this.accessTokens.values()) if (token.consentId === consentId) token.expiresAt = 0;
    if (refreshToo)
      for (const [key, token] of this.refreshTokens)
        if (token.consentId === consentId) this.refreshTokens.delete(key);
  }
}
