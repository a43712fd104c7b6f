import type { CardField, CardForm } from '../../../domain/collect/test-cards.ts';
import { type Html, html, htmlPage } from '../../shared/html.ts';

/**
 * Server-rendered HTML of the hosted card page: no scripts, no external assets (one inline style
 * sheet allowed by its CSP nonce), every input labelled, errors announced and tied to their inputs.
 * Written with Hono's `html` templates (api/shared/html.ts): every interpolated value is escaped.
 */

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; background: #f3f4f6; color: #111827; }
  main { max-width: 28rem; margin: 2rem auto; background: #fff; padding: 1.5rem 2rem; border-radius: .5rem;
         box-shadow: 0 1px 3px rgba(0,0,0,.15); }
  h1 { font-size: 1.35rem; margin-top: 0; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0 0 1.25rem; }
  dt { color: #4b5563; } dd { margin: 0; font-weight: 600; }
  fieldset { border: 1px solid #d1d5db; border-radius: .375rem; padding: 1rem; margin: 0 0 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  label { display: block; margin-top: .75rem; font-weight: 600; }
  input { display: block; width: 100%; box-sizing: border-box; font-size: 1rem; padding: .5rem;
          border: 1px solid #6b7280; border-radius: .25rem; }
  input[aria-invalid="true"] { border: 2px solid #b91c1c; }
  .hint { color: #4b5563; font-size: .875rem; margin: .125rem 0 0; }
  .field-error { color: #b91c1c; font-size: .875rem; margin: .25rem 0 0; font-weight: 600; }
  .errors { border: 2px solid #b91c1c; border-radius: .375rem; padding: .75rem 1rem; margin-bottom: 1rem; }
  .errors h2 { font-size: 1rem; margin: 0 0 .25rem; color: #b91c1c; }
  .actions { display: flex; gap: .75rem; flex-wrap: wrap; }
  button, .button { font-size: 1rem; padding: .6rem 1.2rem; border-radius: .25rem; cursor: pointer;
                    border: 1px solid #1d4ed8; text-decoration: none; display: inline-block; }
  .primary { background: #1d4ed8; color: #fff; }
  .secondary { background: #fff; color: #1d4ed8; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .sandbox { background: #fef3c7; border: 1px solid #d97706; padding: .5rem .75rem; border-radius: .25rem;
             font-size: .875rem; }
  code { font-family: ui-monospace, monospace; }
`;

/** A whole card page: never indexed, its one style sheet allowed by the CSP nonce. */
export function layout(options: { title: string; nonce: string; body: Html }): Html {
  return htmlPage({
    title: options.title,
    nonce: options.nonce,
    style: STYLE,
    body: options.body,
    noindex: true,
  });
}

export interface PaymentView {
  merchantName: string;
  invoice: string;
  /** `22.80 BGN` */
  amount: string;
  description: string | undefined;
  /** Local text of the obligation's expiry. */
  payableUntil: string;
  token: string;
  /** Where the form posts. */
  action: string;
  /** `pay` an online payment, `hold` the amount of a pre-authorisation, `save` a card (AMOUNT=0, SAVECARD=1). */
  mode: 'pay' | 'hold' | 'save';
  /** SAVECARD=1: the card is saved for the merchant's later charges (the customer is told so). */
  saveCard: boolean;
  /** Sandbox mode: the test cards are shown. */
  sandbox: boolean;
  /** What the customer typed (re-shown after an error, never the CVV). */
  values?: Partial<CardForm>;
  problems?: Partial<Record<CardField, string>>;
}

const FIELDS: { name: CardField; label: string; autocomplete: string; hint?: string; inputmode?: string }[] =
  [
    { name: 'number', label: 'Card number', autocomplete: 'cc-number', inputmode: 'numeric' },
    { name: 'expiry', label: 'Expiry date', autocomplete: 'cc-exp', hint: 'MM/YY', inputmode: 'numeric' },
    {
      name: 'cvv',
      label: 'Security code (CVV)',
      autocomplete: 'cc-csc',
      hint: '3 digits on the back',
      inputmode: 'numeric',
    },
    { name: 'holder', label: 'Name on the card (optional)', autocomplete: 'cc-name' },
  ];

function field(view: PaymentView, spec: (typeof FIELDS)[number]): Html {
  const id = `card-${spec.name}`;
  const problem = view.problems?.[spec.name];
  const value = spec.name === 'cvv' ? '' : (view.values?.[spec.name] ?? '');
  const described = [spec.hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${spec.label}</label>
${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}
<input id="${id}" name="${spec.name}" type="text" autocomplete="${spec.autocomplete}"${
    spec.inputmode ? html` inputmode="${spec.inputmode}"` : ''
  }${spec.name === 'holder' ? '' : html` required`} value="${value}"${
    described ? html` aria-describedby="${described}"` : ''
  }${problem ? html` aria-invalid="true"` : ''}>
${problem ? html`<p class="field-error" id="${id}-error">${problem}</p>` : ''}`;
}

export function paymentPage(view: PaymentView): Html {
  const problems = Object.entries(view.problems ?? {});
  const summary =
    problems.length === 0
      ? ''
      : html`<div class="errors" role="alert" tabindex="-1">
<h2>Please correct the card details</h2>
<ul>${problems.map(([name, text]) => html`<li><a href="#card-${name}">${String(text)}</a></li>`)}</ul>
</div>`;
  const verb = view.mode === 'hold' ? 'Hold' : 'Pay';
  const heading =
    view.mode === 'save'
      ? html`Save your card with ${view.merchantName}`
      : html`${verb} ${view.amount} ${view.mode === 'hold' ? 'for' : 'to'} ${view.merchantName}`;
  const button = view.mode === 'save' ? 'Save card' : `${verb} ${view.amount}`;
  return html`<h1>${heading}</h1>
${view.mode === 'hold' ? html`<p>The amount is reserved on your card; the merchant takes at most this amount later, or releases it.</p>` : ''}
${
  view.saveCard
    ? html`<p id="save-card-notice">${view.mode === 'save' ? 'Nothing is paid now: your card is checked with your bank and' : 'Your card is'} saved with this payment gateway, so that ${view.merchantName} can charge it later without asking you again. Only the merchant can use it, and it can be removed at any time.</p>`
    : ''
}
<dl>
<dt>Merchant</dt><dd>${view.merchantName}</dd>
<dt>Invoice</dt><dd>${view.invoice}</dd>
<dt>Amount</dt><dd id="amount">${view.amount}</dd>
${view.description ? html`<dt>Description</dt><dd>${view.description}</dd>` : ''}
<dt>Payable until</dt><dd>${view.payableUntil}</dd>
</dl>
${summary}
<form method="post" action="${view.action}" novalidate>
<input type="hidden" name="token" value="${view.token}">
<fieldset>
<legend>Card details</legend>
${FIELDS.map((spec, index) => html`${index > 0 ? '\n' : ''}${field(view, spec)}`)}
</fieldset>
${
  view.sandbox
    ? html`<p class="sandbox">Sandbox: no real card is charged. Use a test card, e.g. <code>4000 0000 0000 0002</code> (approved), <code>4000 0000 0000 0069</code> (declined) or <code>4000 0000 0000 3220</code> (3-D Secure check).</p>`
    : ''
}
<div class="actions">
<button type="submit" name="action" value="pay" class="primary">${button}</button>
<button type="submit" name="action" value="cancel" class="secondary">Cancel and return to the merchant</button>
</div>
</form>`;
}

export interface ResultView {
  heading: string;
  message: string;
  link?: { href: string; text: string } | undefined;
  /** The page error code (PAGE_USED, PAGE_EXPIRED), when this page answers one. */
  code?: string | undefined;
}

export function resultPage(view: ResultView): Html {
  return html`<h1>${view.heading}</h1>
<p role="status">${view.message}</p>
${view.code ? html`<p>Error code: <code id="error-code">${view.code}</code></p>` : ''}
${view.link ? html`<p><a class="button primary" href="${view.link.href}">${view.link.text}</a></p>` : ''}`;
}

export function errorPage(error: { code: string; message: string; field?: string | undefined }): Html {
  return html`<h1>The payment request cannot be processed</h1>
<p role="alert">${error.message}</p>
<dl>
<dt>Error code</dt><dd><code id="error-code">${error.code}</code></dd>
${error.field ? html`<dt>Field</dt><dd><code>${error.field}</code></dd>` : ''}
</dl>
<p>Please return to the merchant's site and try again, or contact the merchant.</p>`;
}
