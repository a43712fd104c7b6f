import { createHash, randomBytes } from 'node:crypto';
import {
  type BankTokens,
  type OAuthScaPending,
  type Xs2aErrorDetails,
  Xs2aErrorType,
} from '../../../domain/openbanking/xs2a.ts';
import { classifyFetchError } from '../../../platform/outbound-http.ts';
import { isObject } from './answers.ts';
import { failure, protocolError, retryAfterSeconds } from './errors.ts';
import type { Xs2aTransport } from './transport.ts';

/**
 * OAuth2 as SCA approach (decision 0067): the bank's authorisation server as the XS2A client sees it
 * (metadata, the PKCE authorisation request the PSU's browser goes to, the token endpoint).
 */

/** Our client_id at a bank's authorisation server when OPENBANKING_TPP_CLIENT_ID is not set. */
export const DEFAULT_OAUTH_CLIENT_ID = 'integration-platform';

/**
 * One request to the bank's OAuth2 authorisation server (RFC 8414 metadata, RFC 6749 token endpoint):
 * the timeout, no redirects followed; an OAuth error answer (`invalid_grant`, …) is Xs2aConsentInvalid.
 */
async function oauthRequest(
  t: Xs2aTransport,
  what: string,
  target: string,
  form?: Record<string, string>,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await t.fetchFor(target)(target, {
      method: form ? 'POST' : 'GET',
      headers: {
        accept: 'application/json',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      signal: AbortSignal.timeout(t.options.requestTimeoutMs),
      redirect: 'manual',
    });
  } catch (error) {
    if (classifyFetchError(error) === 'refused_by_policy')
      throw protocolError(what, `${new URL(target).host} is refused by the outbound-URL policy`);
    const problem = (error as Error).message;
    throw failure(Xs2aErrorType.BankUnavailable, `${what}: ${problem}`, {
      status: null,
      code: null,
      text: problem,
      retryAfterSeconds: null,
    });
  }
  const parsed: unknown = await response.json().catch(() => undefined);
  if (response.ok && isObject(parsed)) return parsed;
  if (response.ok) throw protocolError(what, `the ${response.status} answer is not a JSON object`);
  const code = isObject(parsed) && typeof parsed.error === 'string' ? parsed.error.slice(0, 64) : null;
  const details: Xs2aErrorDetails = {
    status: response.status,
    code,
    text:
      isObject(parsed) && typeof parsed.error_description === 'string'
        ? parsed.error_description.slice(0, 200)
        : null,
    retryAfterSeconds: retryAfterSeconds(response),
  };
  const summary = `${what}: bank answered ${response.status}${code ? ` ${code}` : ''}`;
  if (response.status >= 500 || response.status === 408)
    throw failure(Xs2aErrorType.BankUnavailable, summary, details);
  // invalid_grant, invalid_client, …: the code or the refresh token will not be honoured.
  if (code) throw failure(Xs2aErrorType.ConsentInvalid, summary, details);
  throw failure(Xs2aErrorType.ProtocolError, summary, details);
}

/** A token response (RFC 6749 §5.1): a bearer access token, maybe a refresh token and its lifetime. */
function tokensOf(what: string, body: Record<string, unknown>, previousRefresh: string | null): BankTokens {
  if (typeof body.access_token !== 'string' || body.access_token.length === 0)
    throw protocolError(what, 'access_token missing');
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    throw protocolError(what, 'token_type is not Bearer');
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    // A refresh answer without a new refresh token keeps the one it was made with (RFC 6749 §6).
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : previousRefresh,
    expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null,
  };
}

const WELL_KNOWN = '/.well-known/oauth-authorization-server';

/**
 * RFC 8414 §3.3: the metadata's `issuer` must be the one whose well-known URL it was read from — the
 * well-known path inserted after the host (`https://as.example/.well-known/…/tenant` for
 * `https://as.example/tenant`) or, as many servers and the Berlin Group's examples publish it,
 * appended to the issuer (`https://as.example/tenant/.well-known/…`).
 */
function issuerMatches(issuer: unknown, metadataUrl: string): boolean {
  if (typeof issuer !== 'string') return false;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return false;
  }
  if (url.search || url.hash) return false;
  const path = url.pathname.replace(/\/+$/, '');
  const read = new URL(metadataUrl);
  const readPath = read.pathname.replace(/\/+$/, '');
  return (
    read.origin === url.origin && (readPath === `${WELL_KNOWN}${path}` || readPath === `${path}${WELL_KNOWN}`)
  );
}

/**
 * OAuth2 as SCA approach (decision 0067): the bank's authorisation-server metadata (`_links.scaOAuth`,
 * RFC 8414), a PKCE code_verifier (S256), and the authorisation request the PSU's browser is sent to
 * (scope `AIS:<consentId>`, our callback as redirect_uri).
 */
export async function oauthAuthorisation(
  t: Xs2aTransport,
  what: string,
  href: string,
  consentId: string,
  redirectUri: string,
): Promise<{ scaRedirectUrl: string; oauth: OAuthScaPending }> {
  // The authorisation server may live on another host than the XS2A interface (decision 0082): the
  // bank's answer announces it; the outbound-URL policy still applies to every request there.
  const metadataUrl = t.oauthLink(what, href);
  const metadata = await oauthRequest(t, `${what} (authorisation server metadata)`, metadataUrl);
  if (!issuerMatches(metadata.issuer, metadataUrl))
    throw protocolError(what, 'the metadata names an issuer other than the one it was read from');
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256'))
    throw protocolError(what, 'the authorisation server does not offer PKCE with S256');
  if (typeof metadata.authorization_endpoint !== 'string' || typeof metadata.token_endpoint !== 'string')
    throw protocolError(what, 'authorization_endpoint or token_endpoint missing');
  let authorize: URL;
  try {
    // The PSU's browser goes there (it may be the bank's public host, as scaRedirect is).
    authorize = new URL(metadata.authorization_endpoint, metadataUrl);
  } catch {
    throw protocolError(what, 'authorization_endpoint is not a URL');
  }
  if (authorize.protocol !== 'https:' && authorize.protocol !== 'http:')
    throw protocolError(what, 'authorization_endpoint is not an http(s) URL');
  const codeVerifier = randomBytes(32).toString('base64url');
  const state = randomBytes(24).toString('base64url');
  const clientId = t.options.oauthClientId ?? DEFAULT_OAUTH_CLIENT_ID;
  const query = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: `AIS:${consentId}`,
    state,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(query)) authorize.searchParams.set(name, value);
  return {
    scaRedirectUrl: authorize.toString(),
    oauth: {
      codeVerifier,
      state,
      tokenEndpoint: t.oauthLink(what, metadata.token_endpoint, metadataUrl),
      clientId,
      redirectUri,
    },
  };
}

/** The client's calls to the bank's token endpoint. */
export interface Xs2aOAuth {
  /**
   * OAuth2 SCA (decision 0067): the authorization code the callback brought, exchanged at the bank's
   * token endpoint with the PKCE code_verifier. A refused code or verifier is Xs2aConsentInvalid.
   */
  exchangeAuthorisationCode(pending: OAuthScaPending, code: string): Promise<BankTokens>;
  /** OAuth2 SCA: a new access token for the refresh token (refused: Xs2aConsentInvalid, a new SCA is needed). */
  refreshAccessToken(tokenEndpoint: string, clientId: string, refreshToken: string): Promise<BankTokens>;
}

export function xs2aOAuth(t: Xs2aTransport): Xs2aOAuth {
  return {
    async exchangeAuthorisationCode(pending, code) {
      const what = 'exchange the authorization code';
      const body = await oauthRequest(t, what, t.oauthLink(what, pending.tokenEndpoint), {
        grant_type: 'authorization_code',
        code,
        redirect_uri: pending.redirectUri,
        client_id: pending.clientId,
        code_verifier: pending.codeVerifier,
      });
      return tokensOf(what, body, null);
    },

    async refreshAccessToken(tokenEndpoint, clientId, refreshToken) {
      const what = 'refresh the access token';
      const body = await oauthRequest(t, what, t.oauthLink(what, tokenEndpoint), {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
      });
      return tokensOf(what, body, refreshToken);
    },
  };
}
