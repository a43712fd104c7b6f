import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * Every HTML page of the platform (card page, SCA and AIS pages, API reference, sandbox bank pages) is
 * written with Hono's `html` template: interpolated values are escaped by Hono, and only markup that
 * is itself an `html` template (or `raw` of a constant) goes in unescaped. No hand-written escaping.
 */
export { html, raw };
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageOptions {
  title: string;
  body: Html;
  /** A constant style sheet of the page (inlined; with `nonce` when the page has a CSP). */
  style?: string;
  /** The CSP nonce of the inline style sheet and script. */
  nonce?: string;
  /** Markup after <main> (e.g. an inline script, itself an `html` template). */
  after?: Html;
  /** `<meta name="robots" content="noindex">`: pages behind a credential. */
  noindex?: boolean;
}

const PLAIN_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}' +
  'button{margin:.4rem 0;padding:.6rem 1.2rem;font-size:1rem}';

/** A whole page: doctype, language, viewport, title, one inline style sheet, the body in <main>. */
export function htmlPage(options: PageOptions): Html {
  const nonce = options.nonce ? html` nonce="${options.nonce}"` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.noindex ? html`<meta name="robots" content="noindex">` : ''}
<title>${options.title}</title>
<style${nonce}>${raw(options.style ?? PLAIN_STYLE)}</style>
</head>
<body>
<main>
${options.body}
</main>
${options.after ?? ''}
</body>
</html>
`;
}
