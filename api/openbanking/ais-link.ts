import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../shared/context.ts';
import { type Html, html, htmlPage } from '../shared/html.ts';

/**
 * The AIS link: the page behind the AIS e-mail link (`POST /api/8/agent/ais/email`): `GET /openbanking/ais/start?token=`
 * shows the bank (or the banks to choose from) with a button; the button POSTs here, which starts the
 * consent exactly as POST consent does (with the link's hook) and sends the browser to the bank's SCA page.
 * The token (a signed JWT, audience `openbanking:ais-link`) is the credential. Opening the link creates
 * nothing, so mail scanners that fetch links start no consents. Answers are HTML. The use cases:
 * application/openbanking/consents.ts.
 */

/** Where the AIS e-mail links to (with `?token=`). */
export const AIS_LINK_PATH = '/openbanking/ais/start';

/** An HTML page of the AIS link (Hono's `html`: every interpolated value is escaped). */
export function page(
  c: Context<AppEnv>,
  status: 200 | 400 | 401 | 404 | 409 | 502 | 503,
  title: string,
  body: Html,
) {
  return c.html(htmlPage({ title, body: html`<h1>${title}</h1>${body}` }), status);
}

export const invalidLink = (c: Context<AppEnv>) =>
  page(c, 401, 'Link not valid', html`<p>This link is not valid or has expired. Ask for a new one.</p>`);

export const htmlContent = { 'text/html': { schema: z.string() } };
/** The page's path below /openbanking. */
export const aisLinkPath = AIS_LINK_PATH.replace(/^\/openbanking/, '');
