import type { Context, Hono } from 'hono';
import { MAX_FAILED_LOGINS, type SandboxBank, type SandboxConsent } from './bank.ts';
import { SANDBOX_USERS } from './catalogue.ts';

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
 * this POST is the spec's "the bank calls POST /redirect/{app}/state/{state}". Plain HTML, no external
 * assets, labelled inputs; one inline script does the auto-submit (a Continue button works without it).
 */

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1f24;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin:1.25rem .5rem 0 0;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}
.alert{color:#a00;font-weight:600}.hint{color:#555;font-size:.9rem;margin-top:2rem}
ul{padding-left:1.2rem}`;

function page(title: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main>${script}</body></html>`;
}

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
      `<h1>${escapeHtml(name)}</h1>
<p>A provider asks to read ${escapeHtml(describeAccess(consent))} until ${escapeHtml(consent.validUntil)}.
Log in to review the request.</p>
${alert ? `<p class="alert" role="alert">${escapeHtml(alert)}</p>` : ''}
<form method="post" action="${base}/${consent.consentId}/login">
<label for="psuId">User ID</label>
<input id="psuId" name="psuId" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<form method="post" action="${base}/${consent.consentId}/decision">
<input type="hidden" name="decision" value="deny">
<button type="submit">Cancel</button>
</form>
<p class="hint">Sandbox test users: ${escapeHtml(users)}</p>`,
    );
  };

  /** A consent whose SCA is over (decided, failed or expired) shows a page saying so. */
  const openConsent = (c: Context): SandboxConsent | Response => {
    const consent = bank.consents.get(c.req.param('consentId') ?? '');
    if (!consent)
      return c.html(page(`${name}`, '<h1>Unknown request</h1><p>This link is not valid.</p>'), 404);
    if (bank.activeMaintenance())
      return c.html(
        page(
          `${name}`,
          `<h1>${escapeHtml(name)}</h1><p role="alert">${escapeHtml(bank.activeMaintenance()!.message)}</p>`,
        ),
        503,
      );
    const status = bank.effectiveStatus(consent);
    if (status !== 'received' || consent.scaStatus === 'finalised' || consent.scaStatus === 'failed')
      return c.html(
        page(
          `${name}`,
          `<h1>Request closed</h1><p>This request is no longer open (${escapeHtml(status)}).</p>`,
        ),
        409,
      );
    return consent;
  };

  /** Sends the browser back to the provider: an auto-submitted POST form to the redirect URI. */
  const returnToProvider = (c: Context, consent: SandboxConsent) => {
    const approved = consent.status === 'valid';
    const target = approved ? consent.redirectUri : consent.nokRedirectUri;
    return c.html(
      page(
        `${name}: returning to the provider`,
        `<h1>${approved ? 'Access approved' : 'Access denied'}</h1>
<p>Returning you to the provider…</p>
<form id="return" method="post" action="${escapeHtml(target)}">
<input type="hidden" name="consentId" value="${escapeHtml(consent.consentId)}">
<input type="hidden" name="consentStatus" value="${escapeHtml(consent.status)}">
<button type="submit">Continue</button>
</form>`,
        '<script>document.getElementById("return").submit();</script>',
      ),
      200,
    );
  };

  app.get(`${base}/:consentId`, (c) => {
    const consent = openConsent(c);
    if (consent instanceof Response) return consent;
    return c.html(loginForm(consent), 200);
  });

  app.post(`${base}/:consentId/login`, async (c) => {
    const consent = openConsent(c);
    if (consent instanceof Response) return consent;
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
        `<h1>Approve access?</h1>
<p>The provider will be able to read ${escapeHtml(describeAccess(consent))} of these accounts until
${escapeHtml(consent.validUntil)}, up to ${consent.request.frequencyPerDay} times a day without you:</p>
<ul>${accounts.map((account) => `<li>${escapeHtml(account.definition.name)}: ${escapeHtml(account.iban)} (${escapeHtml(account.definition.currency)})</li>`).join('')}</ul>
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
    if (consent instanceof Response) return consent;
    const form = await c.req.parseBody();
    const decision = String(form.decision ?? '');
    if (decision === 'deny') {
      // Denying needs no login: the PSU may cancel on the login page.
      bank.decide(consent, false);
      return returnToProvider(c, consent);
    }
    if (decision !== 'approve' || !bank.sessionMatches(consent, String(form.session ?? '')))
      return c.html(loginForm(consent, 'Please log in to approve the request.'), 401);
    bank.decide(consent, true);
    return returnToProvider(c, consent);
  });
}
