import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { html, htmlPage } from '../../api/shared/html.ts';
import type { SandboxBank } from './bank.ts';
import { loginFields } from './login-form.ts';
import { cancelPayment, decide, openAuthorisation, sameDigest, sha256 } from './pis-outcomes.ts';
import type { SandboxAuthorisation, SandboxPayment } from './pis-records.ts';

/** The hosted SCA pages of a sandbox bank's payments and of their cancellations (redirect approach). */

// ─── The hosted SCA page of a payment's cancellation (redirect approach) ───────────────────────

export function registerCancellationScaPage(app: Hono, bank: SandboxBank): void {
  const { code, name } = bank.definition;
  const base = `/${code}/sca/payment-cancellations`;
  const page = (
    c: Context,
    title: string,
    body: ReturnType<typeof html>,
    status: 200 | 401 | 404 | 409,
    after?: ReturnType<typeof html>,
  ) => c.html(htmlPage({ title: `${name}: ${title}`, body, ...(after ? { after } : {}) }), status);
  const open = (c: Context) => {
    const payment = bank.payments.get(c.req.param('paymentId') ?? '');
    const auth = payment?.cancellations?.get(c.req.param('authorisationId') ?? '');
    if (!payment || !auth)
      return page(c, 'unknown request', html`<h1>Unknown request</h1><p>This link is not valid.</p>`, 404);
    if (auth.scaStatus === 'finalised' || auth.scaStatus === 'failed' || payment.transactionStatus !== 'RCVD')
      return page(
        c,
        'request closed',
        html`<h1>Request closed</h1><p>This cancellation is no longer open (${payment.transactionStatus}).</p>`,
        409,
      );
    return { payment, auth };
  };
  const path = (payment: SandboxPayment, authorisationId: string) =>
    `${base}/${payment.paymentId}/${authorisationId}`;
  const loginForm = (
    c: Context,
    payment: SandboxPayment,
    authorisationId: string,
    status: 200 | 401,
    alert?: string,
  ) =>
    page(
      c,
      'cancel a payment',
      html`<h1>${name}</h1>
<p>A provider asks you to cancel the payment of ${payment.request.instructedAmount.amount} ${payment.request.instructedAmount.currency} to ${payment.request.creditorName}. Log in to confirm.</p>
${loginFields(`${path(payment, authorisationId)}/login`, alert)}`,
      status,
    );

  app.get(`${base}/:paymentId/:authorisationId`, (c) => {
    const found = open(c);
    if (found instanceof Response || found instanceof Promise) return found;
    return loginForm(c, found.payment, found.auth.authorisationId, 200);
  });

  app.post(`${base}/:paymentId/:authorisationId/login`, async (c) => {
    const found = open(c);
    if (found instanceof Response || found instanceof Promise) return found;
    const { payment, auth } = found;
    const form = await c.req.parseBody();
    const psu = bank.psus.get(String(form.psuId ?? ''));
    if (
      !psu ||
      !sameDigest(sha256(psu.password), String(form.password ?? '')) ||
      psu.psuId !== payment.debtor.psuId
    )
      return loginForm(c, payment, auth.authorisationId, 401, 'The user ID or password is wrong.');
    const session = randomUUID();
    auth.sessionDigest = sha256(session);
    auth.scaStatus = 'psuAuthenticated';
    return page(
      c,
      'cancel the payment',
      html`<h1>Cancel the payment?</h1>
<form method="post" action="${path(payment, auth.authorisationId)}/decision">
<input type="hidden" name="session" value="${session}">
<button type="submit" name="decision" value="approve">Cancel the payment</button>
<button type="submit" name="decision" value="deny">Keep it</button>
</form>`,
      200,
    );
  });

  app.post(`${base}/:paymentId/:authorisationId/decision`, async (c) => {
    const found = open(c);
    if (found instanceof Response || found instanceof Promise) return found;
    const { payment, auth } = found;
    const form = await c.req.parseBody();
    const approve = String(form.decision ?? '') === 'approve';
    if (approve && !sameDigest(auth.sessionDigest, String(form.session ?? '')))
      return loginForm(c, payment, auth.authorisationId, 401, 'Please log in to cancel the payment.');
    auth.scaStatus = approve ? 'finalised' : 'failed';
    auth.sessionDigest = undefined;
    if (approve) cancelPayment(payment);
    const target = (approve ? auth.redirectUri : auth.nokRedirectUri) ?? auth.redirectUri ?? '';
    return page(
      c,
      'returning to the provider',
      html`<h1>${approve ? 'Payment cancelled' : 'Payment not cancelled'}</h1>
<form id="return" method="post" action="${target}">
<input type="hidden" name="paymentId" value="${payment.paymentId}">
<input type="hidden" name="transactionStatus" value="${payment.transactionStatus}">
<button type="submit">Continue</button>
</form>`,
      200,
      html`<script>document.getElementById("return").submit();</script>`,
    );
  });
}

// ─── The hosted SCA page of a payment (redirect approach) ───────────────────────────────────────

export function registerPaymentScaPage(app: Hono, bank: SandboxBank): void {
  const { code, name } = bank.definition;
  const base = `/${code}/sca/payments`;
  const page = (
    title: string,
    body: ReturnType<typeof html>,
    status: 200 | 401 | 403 | 404 | 409,
    c: Context,
    after?: ReturnType<typeof html>,
  ) => c.html(htmlPage({ title: `${name}: ${title}`, body, ...(after ? { after } : {}) }), status);

  const describe = (payment: SandboxPayment) =>
    `${payment.request.instructedAmount.amount} ${payment.request.instructedAmount.currency} to ${payment.request.creditorName} (${payment.request.creditorAccount.iban})`;

  const loginForm = (c: Context, payment: SandboxPayment, status: 200 | 401 | 403, alert?: string) =>
    page(
      'authorise a payment',
      html`<h1>${name}</h1>
<p>A provider asks you to authorise a payment of ${describe(payment)} from ${payment.debtor.iban}. Log in to review it.</p>
${loginFields(`${base}/${payment.paymentId}/login`, alert)}
<form method="post" action="${base}/${payment.paymentId}/decision">
<input type="hidden" name="decision" value="deny">
<button type="submit">Cancel</button>
</form>`,
      status,
      c,
    );

  /** The payment whose SCA is open, or the page saying why there is none. */
  const open = (
    c: Context,
  ): { closed: Response | Promise<Response> } | { payment: SandboxPayment; auth: SandboxAuthorisation } => {
    const payment = bank.payments.get(c.req.param('paymentId') ?? '');
    if (payment?.approach !== 'REDIRECT')
      return {
        closed: page('unknown request', html`<h1>Unknown request</h1><p>This link is not valid.</p>`, 404, c),
      };
    const auth = openAuthorisation(payment);
    if (!auth || payment.transactionStatus !== 'RCVD')
      return {
        closed: page(
          'request closed',
          html`<h1>Request closed</h1><p>This payment is no longer waiting for you (${payment.transactionStatus}).</p>`,
          409,
          c,
        ),
      };
    return { payment, auth };
  };

  const returnToProvider = (c: Context, payment: SandboxPayment) => {
    const approved = payment.transactionStatus !== 'RJCT';
    const target = (approved ? payment.redirectUri : payment.nokRedirectUri) ?? payment.redirectUri ?? '';
    return page(
      'returning to the provider',
      html`<h1>${approved ? 'Payment authorised' : 'Payment not authorised'}</h1>
<p>Returning you to the provider…</p>
<form id="return" method="post" action="${target}">
<input type="hidden" name="paymentId" value="${payment.paymentId}">
<input type="hidden" name="transactionStatus" value="${payment.transactionStatus}">
<button type="submit">Continue</button>
</form>`,
      200,
      c,
      html`<script>document.getElementById("return").submit();</script>`,
    );
  };

  app.get(`${base}/:paymentId`, (c) => {
    const found = open(c);
    if ('closed' in found) return found.closed;
    return loginForm(c, found.payment, 200);
  });

  app.post(`${base}/:paymentId/login`, async (c) => {
    const found = open(c);
    if ('closed' in found) return found.closed;
    const { payment, auth } = found;
    const form = await c.req.parseBody();
    const psu = bank.psus.get(String(form.psuId ?? ''));
    if (!psu || !sameDigest(sha256(psu.password), String(form.password ?? '')))
      return loginForm(c, payment, 401, 'The user ID or password is wrong.');
    if (psu.psuId !== payment.debtor.psuId)
      return loginForm(c, payment, 403, 'The account to pay from is not yours.');
    const session = randomUUID();
    auth.sessionDigest = sha256(session);
    auth.scaStatus = 'psuAuthenticated';
    return page(
      'authorise the payment',
      html`<h1>Authorise the payment?</h1>
<p>${describe(payment)}, from ${payment.debtor.definition.name} (${payment.debtor.iban}).</p>
<form method="post" action="${base}/${payment.paymentId}/decision">
<input type="hidden" name="session" value="${session}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
      200,
      c,
    );
  });

  app.post(`${base}/:paymentId/decision`, async (c) => {
    const found = open(c);
    if ('closed' in found) return found.closed;
    const { payment, auth } = found;
    const form = await c.req.parseBody();
    const decision = String(form.decision ?? '');
    if (decision === 'deny') {
      decide(bank, payment, auth, false);
      return returnToProvider(c, payment);
    }
    if (decision !== 'approve' || !sameDigest(auth.sessionDigest, String(form.session ?? '')))
      return loginForm(c, payment, 401, 'Please log in to approve the payment.');
    decide(bank, payment, auth, true);
    return returnToProvider(c, payment);
  });
}
