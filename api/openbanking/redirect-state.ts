import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { openbanking } from '../../application/openbanking/index.ts';
import { CANCELLATION_CALLBACK_MARK } from '../../domain/openbanking/payments.ts';
import type { AppEnv } from '../shared/context.ts';
import { html, htmlPage } from '../shared/html.ts';
import { defineOperation } from '../shared/operation.ts';
import { NO_SECURITY } from './identity.ts';

/**
 * `POST /redirect/{app}/state/{state}`: the bank sends the user's browser here at the last step of the
 * authorisation (TPP-Redirect-URI, or with `?outcome=nok` TPP-Nok-Redirect-URI). The gateway signals the
 * consent workflow (which asks the bank how the SCA ended; the browser's word is not trusted), then sends
 * the browser on: 303 to the hook's `redirectUrl` with `state` appended, or a small page when the consent
 * has no redirect URL. The `state` is the credential here: 43 random characters, known only to the
 * bank and the caller of POST consent; only its SHA-256 digest is stored, the consent's row is looked up
 * by the digest of the path's state (so no comparison of secrets takes place) and its workflow signalled
 * by the consent id (`ob-consent-<consentId>`: the state is never in a workflow id). Answers are HTML:
 * a person's browser reads them.
 */

function page(c: Context<AppEnv>, status: 200 | 404, title: string, text: string) {
  return c.html(htmlPage({ title, body: html`<h1>${title}</h1><p>${text}</p>` }), status);
}

const htmlContent = { 'text/html': { schema: z.string() } };

const pathParams = z.object({
  app: z
    .string()
    .max(64)
    .openapi({ param: { name: 'app', in: 'path' }, example: 'web' }),
  state: z
    .string()
    .max(100)
    .openapi({ param: { name: 'state', in: 'path' }, description: 'From POST consent' }),
});

const callbackResponses = {
  200: {
    description: 'The consent has no redirect URL: a page saying the user may close the window',
    content: htmlContent,
  },
  303: { description: 'To the hook’s redirectUrl with `state` appended' },
  404: { description: 'Unknown state', content: htmlContent },
};

/** Signals the flow of the path's state, then sends the browser on (both methods of the callback). */
async function answerCallback(
  c: Context<AppEnv>,
  params: { app: string; state: string },
  nok: boolean,
  form: () => Promise<Record<string, unknown>>,
  cancellation = false,
) {
  const { app, state } = params;
  const sent = await openbanking.receiveBankCallback(c.get('deps'), { app, state, nok, cancellation, form });
  if (!sent)
    return page(
      c,
      404,
      'Unknown request',
      'This link does not belong to a request of ours, or it has expired.',
    );
  if (!sent.redirectUrl)
    return page(
      c,
      200,
      'Thank you',
      'Your bank has sent you back. The provider is being told the result; you may close this window.',
    );
  const target = new URL(sent.redirectUrl);
  target.searchParams.set('state', state);
  return c.redirect(target.toString(), 303);
}

export const redirectStateOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/redirect/{app}/state/{state}',
      operationId: 'bankRedirect',
      tags: ['Account information'],
      summary: 'Bank callback at the end of the user’s authorisation',
      description:
        'Called by the bank (the user’s browser, by a form POST) when the SCA at the bank ends. The consent ' +
        'workflow continues; the browser is sent (303) to the hook’s `redirectUrl` with `state` appended, or shown a ' +
        'short page when there is none. An unknown state or app is a 404 page.',
      security: NO_SECURITY,
      request: {
        params: pathParams,
        query: z.object({
          outcome: z
            .string()
            .max(20)
            .optional()
            .openapi({ description: '`nok` when the bank used the Nok redirect' }),
          sca: z.string().max(20).optional().openapi({
            description: '`cancellation` when the bank returns from a payment cancellation’s own SCA',
          }),
        }),
      },
      responses: callbackResponses,
    }),
  handler: () => async (c) => {
    const query = c.req.valid('query');
    return answerCallback(
      c,
      c.req.valid('param'),
      query.outcome === 'nok',
      () => c.req.parseBody().catch(() => ({}) as Record<string, unknown>),
      query.sca === CANCELLATION_CALLBACK_MARK,
    );
  },
});

/**
 * `GET /redirect/{app}/state/{state}`: the same callback from a bank that runs OAuth2 as SCA approach
 * (decision 0067): its authorisation server redirects the browser here with `code` and `state` (or
 * `error=access_denied`). The code goes to the consent's workflow only, which exchanges it at the bank's
 * token endpoint; the request's query is never logged.
 */
export const redirectStateOAuthOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/redirect/{app}/state/{state}',
      operationId: 'bankOAuthRedirect',
      tags: ['Account information'],
      summary: 'Bank callback at the end of the user’s OAuth2 authorisation',
      description:
        'Called by a bank that runs OAuth2 as SCA approach (the user’s browser, redirected with the authorization ' +
        '`code` and `state`, or `error`). The consent workflow exchanges the code at the bank and continues; the ' +
        'browser is sent on as for the POST callback. An unknown state or app is a 404 page.',
      security: NO_SECURITY,
      request: {
        params: pathParams,
        query: z.object({
          code: z.string().max(2048).optional().openapi({ description: 'The authorization code' }),
          state: z.string().max(200).optional().openapi({ description: 'The authorisation request’s state' }),
          error: z.string().max(100).optional().openapi({ example: 'access_denied' }),
          error_description: z.string().max(500).optional(),
        }),
      },
      responses: callbackResponses,
    }),
  handler: () => async (c) => {
    const query = c.req.valid('query');
    return answerCallback(c, c.req.valid('param'), query.error !== undefined, async () => ({ ...query }));
  },
});
