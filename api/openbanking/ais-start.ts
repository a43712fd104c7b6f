import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import type { Context } from 'hono';
import { AUDIENCE, verifyJwt } from '../../activities/openbanking/jws.ts';
import { obUsers } from '../../db/schema/openbanking.ts';
import { CONSENT_SCOPES } from '../../domain/openbanking/consents.ts';
import type { AppEnv } from '../shared/context.ts';
import { ApiError } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AIS_LINK_PATH } from './ais-email.ts';
import { type BankRecord, findBank, listBanks } from './bank-records.ts';
import { startConsentFlow } from './consent.ts';
import type { UserIdentity } from './identity.ts';
import { NO_SECURITY } from './identity.ts';

/**
 * The page behind the AIS e-mail link (`POST /api/8/agent/ais/email`): `GET /openbanking/ais/start?token=`
 * shows the bank (or the banks to choose from) with a button; the button POSTs here, which starts the
 * consent exactly as POST consent does (with the link's hook) and sends the browser to the bank's SCA page.
 * The token (a signed JWT, audience `openbanking:ais-link`) is the credential. Opening the link creates
 * nothing, so mail scanners that fetch links start no consents. Answers are HTML.
 */

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

function page(
  c: Context<AppEnv>,
  status: 200 | 400 | 401 | 404 | 409 | 502 | 503,
  title: string,
  body: string,
) {
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}` +
      `button{margin:.4rem 0;padding:.6rem 1.2rem;font-size:1rem}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    status,
  );
}

interface LinkClaims {
  user: UserIdentity;
  hookHash: string | undefined;
  bankHash: string | undefined;
}

/** The live user and the choices of a valid, unexpired AIS link token; undefined otherwise. */
async function claimsOf(c: Context<AppEnv>, token: string | undefined): Promise<LinkClaims | undefined> {
  if (!token || token.length > 4000) return undefined;
  const { db, config } = c.get('deps');
  const payload = await verifyJwt(db, config, token, AUDIENCE.aisLink);
  if (!payload?.sub || typeof payload.agent !== 'string') return undefined;
  const [live] = await db
    .select({ id: obUsers.id })
    .from(obUsers)
    .where(and(eq(obUsers.id, payload.sub), eq(obUsers.agentId, payload.agent), isNull(obUsers.deletedAt)))
    .limit(1);
  if (!live) return undefined;
  return {
    user: { userId: payload.sub, agentId: payload.agent },
    hookHash: typeof payload.hookHash === 'string' ? payload.hookHash : undefined,
    bankHash: typeof payload.bankHash === 'string' ? payload.bankHash : undefined,
  };
}

const invalidLink = (c: Context<AppEnv>) =>
  page(c, 401, 'Link not valid', '<p>This link is not valid or has expired. Ask for a new one.</p>');

const htmlContent = { 'text/html': { schema: z.string() } };
const path = AIS_LINK_PATH.replace(/^\/openbanking/, '');

const showAisStart = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path,
      operationId: 'aisStartPage',
      tags: ['Account information'],
      summary: 'AIS link page: choose the bank',
      description: 'The page the AIS e-mail links to. Creates nothing; its button starts the consent.',
      security: NO_SECURITY,
      request: { query: z.object({ token: z.string().max(4000).optional() }) },
      responses: {
        200: { description: 'The page', content: htmlContent },
        401: { description: 'Invalid or expired link', content: htmlContent },
      },
    }),
  handler: () => async (c) => {
    const token = c.req.valid('query').token;
    const claims = await claimsOf(c, token);
    if (!claims) return invalidLink(c);
    const { db } = c.get('deps');
    let banks: BankRecord[];
    try {
      banks = claims.bankHash ? [await findBank(db, claims.bankHash)] : await listBanks(db);
    } catch {
      banks = await listBanks(db);
    }
    const buttons = banks
      .map(
        (bank) =>
          `<form method="post" action="${escapeHtml(AIS_LINK_PATH)}"><input type="hidden" name="token" value="${escapeHtml(token!)}">` +
          `<input type="hidden" name="bankHash" value="${escapeHtml(bank.bankHash)}">` +
          `<button type="submit">Connect ${escapeHtml(bank.name)}</button></form>`,
      )
      .join('');
    return page(
      c,
      200,
      'Connect your bank account',
      `<p>Choose your bank. You will log in at the bank and approve sharing your accounts, balances and transactions.</p>${buttons}`,
    );
  },
});

const startAis = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path,
      operationId: 'aisStart',
      tags: ['Account information'],
      summary: 'AIS link page: start the consent',
      description:
        'Form fields `token` (the link’s) and `bankHash`. Starts the consent (as POST consent, with the link’s hook) ' +
        'and answers 303 to the bank’s SCA page.',
      security: NO_SECURITY,
      responses: {
        303: { description: 'To the bank’s SCA page' },
        401: { description: 'Invalid or expired link', content: htmlContent },
      },
    }),
  handler: () => async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const claims = await claimsOf(c, typeof form.token === 'string' ? form.token : undefined);
    if (!claims) return invalidLink(c);
    const bankHash = claims.bankHash ?? (typeof form.bankHash === 'string' ? form.bankHash : '');
    if (!/^[0-9a-f]{24}$/.test(bankHash)) return page(c, 400, 'Choose a bank', '<p>No bank was chosen.</p>');
    try {
      const started = await startConsentFlow(
        c,
        claims.user,
        {
          bankHash,
          ...(claims.hookHash ? { hookHash: claims.hookHash } : {}),
          app: 'ais-link',
          kind: 'ais',
          access: [...CONSENT_SCOPES],
          ibans: [],
        },
        c.req.header('user-agent'),
      );
      return c.redirect(started.scaRedirectUrl, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const status =
        ([400, 404, 409, 502, 503] as const).find((candidate) => candidate === error.status) ?? 400;
      return page(c, status, 'Could not start', `<p>${escapeHtml(error.message)}</p>`);
    }
  },
});

export const aisStartOperations = [showAisStart, startAis];
