import type { Context, Hono } from 'hono';
import { type Html, html, htmlPage } from '../../api/shared/html.ts';
import { MAX_FAILED_LOGINS, type SandboxBank, type SandboxConsent } from './bank.ts';
import { SANDBOX_USERS } from './catalogue.ts';
import { loginFields } from './login-form.ts';
import { oauthReturn } from './oauth2-server.ts';

/**
 * The bank's hosted SCA page (Berlin Group redirect approach), at the consent's `scaRedirect` href:
 *
 *   GET  /{code}/sca/{consentId}           login form (user ID + password), or Cancel
 *   POST /{code}/sca/{consentId}/login     wrong → the form again (401) with the reason;
 *                                          right → the accounts to be shared, Approve / Deny
 *   POST /{code}/sca/{consentId}/decision  approve → consent valid; deny → rejected; then
 *
 * the bank sends the browser back to the TPP by an auto-submitted POST form (the "form post" response
 * mode) to TPP-Redirect-URI (approved) or TPP-Nok-Redirect-URI (denied), carrying `consentId` and
 * `consentStatus`. The platform passes its own `/openbanking/redirect/{app}/state/{state}` as both, so
 * this POST is the spec's "the bank calls POST /redirect/{app}/state/{state}". Plain HTML (Hono's
 * `html`, api/shared/html.ts), no external assets, labelled inputs; one inline script does the auto-submit (a Continue button works without it).
 */

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1f24;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin:1.25rem .5rem 0 0;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}
.alert{color:#a00;font-weight:600}.hint{color:#555;font-size:.9rem;margin-top:2rem}
ul{padding-left:1.2rem}`;

/** A page of the bank (api/shared/html.ts: every interpolated value is escaped by Hono). */
const page = (title: string, body: Html, after?: Html): Html =>
  htmlPage({ title, body, style: STYLE, ...(after ? { after } : {}) });

function describeAccess(consent: SandboxConsent): string {
  const { access } = consent.request;
  if (access.allPsd2) return 'your accounts, their balances and transactions';
  if (access.availableAccounts) return 'the list of your accounts (once)';
  const services = (['accounts', 'balances', 'transactions'] as const).filter((name) => access[name]);
  return services.length === 3 || services.every((name) => access[name]!.length === 0)
    ? 'your accounts, their balances and transactions'
    : services.join(', ');
}

export function registerScaPage(app: Hono, bank: SandboxBank): void {
  const { code, name } = bank.definition;
  const base = `/${code}/sca`;

  const loginForm = (consent: SandboxConsent, alert?: string) => {
    const users = (SANDBOX_USERS[code] ?? []).map((user) => `${user.psuId} / ${user.password}`).join(', ');
    return page(
      `${name}: log in`,
      html`<h1>${name}</h1>
<p>A provider asks to read ${describeAccess(consent)} until ${consent.validUntil}.
Log in to review the request.</p>
${loginFields(`${base}/${consent.consentId}/login`, alert)}
<form method="post" action="${base}/${consent.consentId}/decision">
<input type="hidden" name="decision" value="deny">
<button type="submit">Cancel</button>
</form>
<p class="hint">Sandbox test users: ${users}</p>`,
    );
  };

  /** A consent whose SCA is over (decided, failed or expired) shows a page saying so. */
  const openConsent = (c: Context): SandboxConsent | Promise<Response> => {
    const consent = bank.consents.get(c.req.param('consentId') ?? '');
    if (!consent)
      return Promise.resolve(
        c.html(page(`${name}`, html`<h1>Unknown request</h1><p>This link is not valid.</p>`), 404),
      );
    if (bank.activeMaintenance())
      return Promise.resolve(
        c.html(
          page(`${name}`, html`<h1>${name}</h1><p role="alert">${bank.activeMaintenance()!.message}</p>`),
          503,
        ),
      );
    const status = bank.effectiveStatus(consent);
    if (
      status !== 'received' ||
      !consent.authorisationStarted ||
      consent.scaStatus === 'finalised' ||
      consent.scaStatus === 'failed'
    )
      return Promise.resolve(
        c.html(
          page(`${name}`, html`<h1>Request closed</h1><p>This request is no longer open (${status}).</p>`),
          409,
        ),
      );
    return consent;
  };

  /** Sends the browser back to the provider: an auto-submitted POST form to the redirect URI. */
  const returnToProvider = (c: Context, consent: SandboxConsent) => {
    // OAuth2 SCA (decision 0067): back to the redirect_uri with the code, or access_denied.
    if (consent.oauth) return oauthReturn(c, bank, consent);
    const approved = consent.status === 'valid';
    const target = approved ? consent.redirectUri : consent.nokRedirectUri;
    return c.html(
      page(
        `${name}: returning to the provider`,
        html`<h1>${approved ? 'Access approved' : 'Access denied'}</h1>
<p>Returning you to the provider…</p>
<form id="return" method="post" action="${target}">
<input type="hidden" name="consentId" value="${consent.consentId}">
<input type="hidden" name="consentStatus" value="${consent.status}">
<button type="submit">Continue</button>
</form>`,
        html`<script>document.getElementById("return").submit();</script>`,
      ),
      200,
    );
  };

  app.get(`${base}/:consentId`, (c) => {
    const consent = openConsent(c);
    if (consent instanceof Promise) return consent;
    return c.html(loginForm(consent), 200);
  });

  app.post(`${base}/:consentId/login`, async (c) => {
    const consent = openConsent(c);
    if (consent instanceof Promise) return consent;
    const form = await c.req.parseBody();
    const outcome = bank.login(consent, String(form.psuId ?? ''), String(form.password ?? ''));
    if (outcome === 'wrong') {
      if (consent.failedLogins >= MAX_FAILED_LOGINS) {
        bank.decide(consent, false);
        return returnToProvider(c, consent);
      }
      return c.html(loginForm(consent, 'The user ID or password is wrong.'), 401);
    }
    if (outcome === 'no-accounts')
      return c.html(loginForm(consent, 'None of the requested accounts belongs to this user.'), 403);
    const accounts = [...consent.grant!.accountIds].map((id) => bank.accounts.get(id)!);
    return c.html(
      page(
        `${name}: approve access`,
        html`<h1>Approve access?</h1>
<p>The provider will be able to read ${describeAccess(consent)} of these accounts until
${consent.validUntil}, up to ${consent.request.frequencyPerDay} times a day without you:</p>
<ul>${accounts.map((account) => html`<li>${account.definition.name}: ${account.iban} (${account.definition.currency})</li>`)}</ul>
<form method="post" action="${base}/${consent.consentId}/decision">
<input type="hidden" name="session" value="${outcome.session}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
      ),
      200,
    );
  });

  app.post(`${base}/:consentId/decision`, async (c) => {
    const consent = openConsent(c);
    if (consent instanceof Promise) return consent;
    const form = await c.req.parseBody();
    const decision = String(form.decision ?? '');
    if (decision === 'deny') {
      // Denying needs no login: the PSU may cancel on the login page.
      bank.decide(consent, false);
      return returnToProvider(c, consent);
    }
    if (decision !== 'approve' || !bank.sessionMatches(consent, String(form.session ?? '')))
      return c.html(loginForm(consent, 'Please log in to approve the request.'), 401);
    if (consent.oauth) {
      // OAuth2: the SCA is done; the consent becomes valid when the TPP exchanges the code.
      consent.scaStatus = 'finalised';
      consent.sessionHash = undefined;
    } else bank.decide(consent, true);
    return returnToProvider(c, consent);
  });
}
