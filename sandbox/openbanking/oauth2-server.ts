import type { Context, Hono } from 'hono';
import { type Html, html, htmlPage } from '../../api/shared/html.ts';
import type { SandboxBank, SandboxConsent } from './bank.ts';

/**
 * OAuth2 as SCA approach (Berlin Group NextGenPSD2 1.3.x, decision 0067) at a sandbox bank whose
 * `scaStart` is `oauth2` (Bank O). The answer to POST /v1/consents carries `_links.scaOAuth`, the bank's
 * authorisation-server metadata; the PSU authorises in the browser, the TPP exchanges the code:
 *
 *   GET  /.well-known/oauth-authorization-server/{code}   RFC 8414 metadata (issuer {origin}/{code})
 *   GET  /{code}/oauth2/authorize                          response_type=code, client_id, redirect_uri
 *        (the consent's TPP-Redirect-URI), scope=AIS:<consentId>, state, code_challenge (S256 only)
 *        → 302 to the bank's SCA page (sca-page.ts); approved → 303 redirect_uri?code=…&state=…,
 *        denied → 303 redirect_uri?error=access_denied&state=…
 *   POST /{code}/oauth2/token                              authorization_code (code_verifier checked,
 *        the code one-use and short-lived) → access_token, refresh_token, expires_in; the consent
 *        becomes `valid`; refresh_token → a new access token
 *   POST /{code}/sandbox/consents/{id}/oauth/expire        test control: the consent's access tokens
 *        expire now (`{"refresh": true}`: its refresh tokens are withdrawn too)
 *   PUT  /{code}/sandbox/oauth/token-ttl                   test control: `{"seconds": N}`, the
 *        `expires_in` of the access tokens issued from now on (default 3600)
 *
 * The account-information reads then need `Authorization: Bearer <access_token>` of that consent
 * (401 TOKEN_INVALID / TOKEN_EXPIRED otherwise, xs2a-routes.ts). The codes and tokens themselves are kept
 * by the bank's SandboxOAuthServer (oauth2-tokens.ts).
 */

/** RFC 7636: an S256 code challenge is 43 base64url characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The end of the SCA page for a consent opened by an authorisation request: the browser goes back to
 * the TPP's redirect_uri with a code (approved: the consent waits for the token request) or
 * `error=access_denied`.
 */
export function oauthReturn(c: Context, bank: SandboxBank, consent: SandboxConsent): Response {
  const request = consent.oauth!;
  const target = new URL(request.redirectUri);
  if (consent.status === 'received' && consent.scaStatus === 'finalised')
    target.searchParams.set('code', bank.oauth.issueCode(consent.consentId, request));
  else target.searchParams.set('error', 'access_denied');
  if (request.state) target.searchParams.set('state', request.state);
  return c.redirect(target.toString(), 303);
}

const errorPage = (c: Context, bank: SandboxBank, text: string) =>
  c.html(
    htmlPage({
      title: bank.definition.name,
      body: html`<h1>${bank.definition.name}</h1><p role="alert">${text}</p>` as Html,
    }),
    400,
  );

export function registerOAuth2Server(app: Hono, bank: SandboxBank, publicUrl: () => string): void {
  const { code } = bank.definition;
  const tokenAnswer = (c: Context, body: Record<string, unknown>, status: 200 | 400 = 200) => {
    c.header('Cache-Control', 'no-store');
    return c.json(body, status);
  };
  const oauthError = (c: Context, error: string, description: string) =>
    tokenAnswer(c, { error, error_description: description }, 400);

  app.get(`/.well-known/oauth-authorization-server/${code}`, (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json(
      {
        issuer: `${origin}/${code}`,
        // The PSU's browser goes to the public URL; the TPP calls the token endpoint where it reached us.
        authorization_endpoint: `${publicUrl()}/${code}/oauth2/authorize`,
        token_endpoint: `${origin}/${code}/oauth2/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['AIS:<consentId>'],
      },
      200,
    );
  });

  app.get(`/${code}/oauth2/authorize`, (c) => {
    const query = c.req.query();
    const consentId = /^AIS:(.+)$/.exec(query.scope ?? '')?.[1] ?? '';
    const consent = bank.consents.get(consentId);
    // RFC 6749 §4.1.2.1: a request whose client or redirect URI cannot be trusted is not redirected.
    if (!consent?.redirectUri)
      return errorPage(c, bank, 'scope must be AIS:<consentId> of a consent of this bank.');
    if (!query.client_id) return errorPage(c, bank, 'client_id is required.');
    if (query.redirect_uri !== consent.redirectUri)
      return errorPage(c, bank, 'redirect_uri is not the one the consent was requested with.');
    const back = (error: string, description: string) => {
      const target = new URL(consent.redirectUri);
      target.searchParams.set('error', error);
      target.searchParams.set('error_description', description);
      if (query.state) target.searchParams.set('state', query.state);
      return c.redirect(target.toString(), 303);
    };
    if (query.response_type !== 'code')
      return back('unsupported_response_type', 'response_type must be code');
    // PKCE is required, S256 only (RFC 7636 §4.4.1).
    if (query.code_challenge_method !== 'S256' || !CHALLENGE.test(query.code_challenge ?? ''))
      return back('invalid_request', 'code_challenge with code_challenge_method S256 is required');
    if (bank.effectiveStatus(consent) !== 'received' || consent.scaStatus === 'finalised')
      return back('invalid_request', `the consent is ${bank.effectiveStatus(consent)}`);
    consent.oauth = {
      clientId: query.client_id,
      redirectUri: query.redirect_uri,
      state: query.state ?? null,
      codeChallenge: query.code_challenge!,
    };
    consent.authorisationStarted = true;
    // The login and approve/deny page every sandbox bank has (sca-page.ts).
    return c.redirect(`/${code}/sca/${consent.consentId}`, 302);
  });

  app.post(`/${code}/oauth2/token`, async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    if (field('grant_type') === 'authorization_code') {
      for (const name of ['code', 'redirect_uri', 'client_id', 'code_verifier'])
        if (!field(name)) return oauthError(c, 'invalid_request', `${name} is required`);
      const redeemed = bank.oauth.redeemCode({
        code: field('code'),
        clientId: field('client_id'),
        redirectUri: field('redirect_uri'),
        codeVerifier: field('code_verifier'),
      });
      if ('error' in redeemed) return oauthError(c, 'invalid_grant', redeemed.error);
      const consent = bank.consents.get(redeemed.consentId);
      if (!consent || bank.effectiveStatus(consent) !== 'received' || !consent.grant)
        return oauthError(c, 'invalid_grant', 'the consent is no longer waiting for its authorisation');
      bank.decide(consent, true);
      const tokens = bank.oauth.issueTokens(consent.consentId, field('client_id'), null);
      bank.oauth.witnessed.push({
        consentId: consent.consentId,
        code: field('code'),
        codeVerifier: field('code_verifier'),
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
      });
      return tokenAnswer(c, tokens);
    }
    if (field('grant_type') === 'refresh_token') {
      const found = bank.oauth.refreshTokenOf(field('refresh_token'), field('client_id'));
      const consent = found ? bank.consents.get(found.consentId) : undefined;
      if (!consent || bank.effectiveStatus(consent) !== 'valid')
        return oauthError(c, 'invalid_grant', 'the refresh token is unknown or its consent is not valid');
      // The refresh token stays (no rotation): two refreshes at once both succeed.
      const tokens = bank.oauth.issueTokens(consent.consentId, field('client_id'), field('refresh_token'));
      bank.oauth.witnessed.push({
        consentId: consent.consentId,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
      });
      return tokenAnswer(c, tokens);
    }
    return oauthError(c, 'unsupported_grant_type', 'authorization_code or refresh_token');
  });

  app.put(`/${code}/sandbox/oauth/token-ttl`, async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { seconds?: unknown };
    if (!(typeof body.seconds === 'number' && Number.isInteger(body.seconds) && body.seconds > 0))
      return c.json({ error: 'seconds: a positive whole number' }, 400);
    bank.oauth.accessTokenTtlSeconds = body.seconds;
    return c.json({ seconds: body.seconds }, 200);
  });

  app.post(`/${code}/sandbox/consents/:consentId/oauth/expire`, async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { refresh?: unknown };
    if (!bank.consents.has(c.req.param('consentId'))) return c.json({ error: 'unknown consent' }, 404);
    bank.oauth.expire(c.req.param('consentId'), body.refresh === true);
    return c.body(null, 204);
  });
}
