import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  collect,
  type DeskOperator,
  type DeskReceipt,
  type IdnView,
} from '../../../application/collect/index.ts';
import { Refusal } from '../../../application/shared/refusal.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../domain/collect/desk.ts';
import { IDN_TEXT } from '../../../domain/collect/payloads.ts';
import type { AppEnv } from '../../shared/context.ts';
import { type Html, html, htmlPage } from '../../shared/html.ts';
import { htmlAnswer } from '../../shared/openapi.ts';

/**
 * The hosted cash-desk page (GET /desk and its forms): a person logs in, looks up an IDN, takes a
 * payment or pays out a payout. The session is an HttpOnly, SameSite=Strict cookie (Secure over
 * https) holding the same kind of token as the desk API's bearer; every form POST carries a CSRF token
 * derived from it (HMAC), and a POST from another origin is refused.
 */

export type DeskPageContext = Context<AppEnv>;

/** What every form post of the page (a payment, a payout) may answer, but its conflicts. */
export const pageFormResponses = {
  200: htmlAnswer('The receipt'),
  400: htmlAnswer('A field is missing or malformed'),
  401: htmlAnswer('Not logged in'),
  403: htmlAnswer('CSRF token invalid or another origin'),
  404: htmlAnswer('No such IDN'),
};

const COOKIE = 'desk_session';

/** `/collect/desk`, however the collect app is mounted. */
export const deskBase = (c: DeskPageContext) =>
  c.req.path.slice(0, c.req.path.indexOf('/desk') + '/desk'.length);

const isHttps = (c: DeskPageContext) =>
  new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

export function setSessionCookie(c: DeskPageContext, token: string, expiresAt: Date): void {
  setCookie(c, COOKIE, token, {
    path: deskBase(c),
    httpOnly: true,
    sameSite: 'Strict',
    secure: isHttps(c),
    expires: expiresAt,
  });
}

export function clearSessionCookie(c: DeskPageContext): void {
  deleteCookie(c, COOKIE, { path: deskBase(c), secure: isHttps(c) });
}

export const sessionToken = (c: DeskPageContext) => getCookie(c, COOKIE);

/** The CSRF token of a session: bound to it, nothing stored. */
const csrfOf = (token: string) => createHmac('sha256', token).update('desk-page-csrf').digest('base64url');

/** The logged-in operator of the page, with the session's CSRF token; undefined when not logged in. */
export async function pageOperator(
  c: DeskPageContext,
): Promise<{ operator: DeskOperator; token: string; csrf: string } | undefined> {
  const token = sessionToken(c);
  if (!token) return undefined;
  const operator = await collect.operatorOfSession(c.get('deps'), { token });
  return operator ? { operator, token, csrf: csrfOf(token) } : undefined;
}

/** A form post from this origin: another site's form (Origin) is refused before anything is read. */
export function requireSameOrigin(c: DeskPageContext): void {
  const origin = c.req.header('origin');
  if (origin && origin !== 'null' && origin !== new URL(c.req.url).origin) {
    throw new Refusal(403, 'cross_origin_post', 'The form was posted from another site');
  }
}

/** The form's CSRF token matches the session's (constant time). */
export function checkCsrf(expected: string, presented: string): void {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new Refusal(
      403,
      'csrf_token_invalid',
      'The form is stale or was posted from elsewhere; reload the page',
    );
  }
}

export async function formFields(c: DeskPageContext): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) {
    throw Refusal.field('(body)', 'must be a form (application/x-www-form-urlencoded)', 415);
  }
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * An authenticated form post of the desk: same origin, a live session, its CSRF token, a request id
 * (the idempotency key) and the named fields present (400 naming the first one missing or malformed).
 */
export async function requirePageForm<F extends string>(
  c: DeskPageContext,
  fields: readonly F[],
): Promise<{
  session: { operator: DeskOperator; csrf: string };
  form: Record<F | 'requestId', string>;
}> {
  requireSameOrigin(c);
  const session = await pageOperator(c);
  if (!session) throw Refusal.unauthorized('Log in first: the session has ended');
  const form = await formFields(c);
  checkCsrf(session.csrf, form.csrf ?? '');
  if (!IDEMPOTENCY_KEY_PATTERN.test(form.requestId ?? '')) {
    throw Refusal.field('requestId', 'requestId: 8-128 letters, digits or ._:-');
  }
  const values: Record<string, string> = { requestId: form.requestId! };
  for (const field of fields) {
    const value = form[field]?.trim();
    if (!value) throw Refusal.field(field, `${field}: required`);
    if (field === 'idn' && !IDN_TEXT.test(value)) throw Refusal.field(field, 'idn: must be 10 digits');
    values[field] = value;
  }
  return { session, form: values as Record<F | 'requestId', string> };
}

/** An error as the page says it: the message, and each field at fault. */
const errorText = (error: Refusal) =>
  error.fields?.length ? error.fields.map((field) => field.message).join('; ') : error.message;

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}' +
  'label{display:block;margin:.6rem 0}input{font-size:1rem;padding:.3rem;margin-left:.4rem}' +
  'button{margin:.4rem 0;padding:.5rem 1rem;font-size:1rem}dt{font-weight:600}dd{margin:0 0 .4rem}' +
  '.error{color:#a00}.ok{color:#070}header{display:flex;justify-content:space-between;align-items:center}';

export function pageAnswer(
  c: DeskPageContext,
  status: number,
  title: string,
  body: Html,
): Response | Promise<Response> {
  c.header('cache-control', 'no-store');
  return c.html(htmlPage({ title, body, style: STYLE, noindex: true }), status as 200);
}

export function loginPage(c: DeskPageContext, status: number, problem?: string) {
  return pageAnswer(
    c,
    status,
    'Cash desk: log in',
    html`<h1>Cash desk</h1>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form method="post" action="${deskBase(c)}/login">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Log in</button>
</form>`,
  );
}

function header(c: DeskPageContext, operator: DeskOperator, csrf: string) {
  return html`<header><h1>Cash desk ${operator.officeId}</h1>
<form method="post" action="${deskBase(c)}/logout"><input type="hidden" name="csrf" value="${csrf}">
<span>${operator.name} (${operator.officeKind})</span> <button type="submit">Log out</button></form></header>
<form method="get" action="${deskBase(c)}">
<label>IDN <input name="idn" inputmode="numeric" pattern="[0-9]{10}" required autofocus></label>
<button type="submit">Look up</button>
</form>`;
}

/** The desk: the look-up form, and what is due on the IDN looked up (with the form to act on it). */
export function deskPage(
  c: DeskPageContext,
  session: { operator: DeskOperator; csrf: string },
  found?: { view: IdnView } | { error: Refusal },
) {
  const status = found && 'error' in found ? found.error.status : 200;
  return pageAnswer(
    c,
    status,
    'Cash desk',
    html`${header(c, session.operator, session.csrf)}
${found ? ('error' in found ? html`<p class="error" role="alert" data-code="${found.error.code}">${errorText(found.error)}</p>` : idnSection(c, found.view, session.csrf)) : ''}`,
  );
}

function idnSection(c: DeskPageContext, view: IdnView, csrf: string) {
  const facts = html`<dl>
<dt>IDN</dt><dd data-field="idn">${view.idn}</dd>
<dt>Kind</dt><dd data-field="kind">${view.type === 'obligation' ? view.kind : 'billing'}</dd>
<dt>Status</dt><dd data-field="status">${view.status}</dd>
<dt>Amount</dt><dd data-field="amount">${view.amount} ${view.currency}</dd>
${view.type === 'obligation' ? html`<dt>Invoice</dt><dd>${view.invoice}</dd><dt>Expires</dt><dd>${view.expTime}</dd>` : html`<dt>For</dt><dd>${view.shortDesc ?? ''}</dd>`}
</dl>`;
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="requestId" value="${randomUUID()}">
<input type="hidden" name="idn" value="${view.idn}">`;
  if (view.action === 'payment') {
    return html`${facts}<form method="post" action="${deskBase(c)}/pay">${hidden}
<button type="submit">Take payment of ${view.amount} ${view.currency}</button></form>`;
  }
  if (view.action === 'payout') {
    return html`${facts}<h2>Pay out</h2>
<p>Check the recipient's identity document and type what it says.</p>
<form method="post" action="${deskBase(c)}/payout">${hidden}
<label>Personal or document number <input name="recipientId" required autocomplete="off"></label>
<label>Full name <input name="recipientName" required autocomplete="off"></label>
<button type="submit">Pay out ${view.amount} ${view.currency}</button></form>`;
  }
  return html`${facts}<p>Nothing to do at the desk for this IDN.</p>`;
}

export function receiptPage(
  c: DeskPageContext,
  session: { operator: DeskOperator; csrf: string },
  receipt: DeskReceipt,
) {
  return pageAnswer(
    c,
    200,
    `Receipt ${receipt.receipt}`,
    html`${header(c, session.operator, session.csrf)}
<h2 class="ok">${receipt.operation === 'payout' ? 'Paid out' : 'Paid'}</h2>
<dl>
<dt>Receipt</dt><dd data-field="receipt">${receipt.receipt}</dd>
<dt>IDN</dt><dd>${receipt.idn}</dd>
<dt>Amount</dt><dd>${receipt.amount} ${receipt.currency}</dd>
<dt>Status</dt><dd data-field="status">${receipt.status}</dd>
<dt>Time</dt><dd>${receipt.payTime ?? ''}</dd>
<dt>STAN / BCODE</dt><dd>${receipt.stan ?? ''} / ${receipt.bcode ?? ''}</dd>
</dl>`,
  );
}

export function refusalPage(
  c: DeskPageContext,
  session: { operator: DeskOperator; csrf: string },
  error: Refusal,
) {
  return pageAnswer(
    c,
    error.status,
    'Cash desk: refused',
    html`${header(c, session.operator, session.csrf)}
<p class="error" role="alert" data-code="${error.code}">${errorText(error)}</p>`,
  );
}

/** Runs a page operation: an Refusal of the desk becomes the page with its message and status. */
export function deskPageHandler(operation: (c: DeskPageContext) => Promise<Response>) {
  return async (c: DeskPageContext): Promise<Response> => {
    try {
      return await operation(c);
    } catch (error) {
      if (!(error instanceof Refusal) || error.status >= 500) throw error;
      const session = await pageOperator(c);
      if (!session) return loginPage(c, error.status, errorText(error));
      return refusalPage(c, session, error);
    }
  };
}
