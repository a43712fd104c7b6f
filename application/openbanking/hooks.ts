import { randomBytes } from 'node:crypto';
import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { UserIdentity } from '../../credentials/openbanking/identity.ts';
import { currentSecretOf, ensureWebhookEndpoint } from '../../credentials/webhooks/endpoints.ts';
import { webhookSecretKey } from '../../credentials/webhooks/signing-secrets.ts';
import type { Database } from '../../db/client.ts';
import { obHooks } from '../../db/schema/openbanking.ts';
import { HOOK_EVENTS, type HookBodyFormat, type HookEvent } from '../../domain/openbanking/hook-events.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Hooks: a URL called back when adding IBANs or a payment finishes (createhook), with the URL the
 * user's browser is sent to at the end (PUT redirect). Owner: the caller. A user's hook is the user's;
 * an agent's serves all its users. A hook hash is an identifier, not a credential: every use checks
 * its owner.
 */

export interface HookCaller {
  agentId: string;
  userId?: string;
  /** Which identity called: only `agent` owns the agent's webhook endpoints (and reads their secrets). */
  via?: 'user' | 'agent' | 'public';
}

export interface HookView {
  hookHash: string;
  url: string;
  redirectUrl: string | null;
  events: HookEvent[];
  /** How its calls are written (decision 0064). */
  bodyFormat: HookBodyFormat;
  owner: 'user' | 'agent';
  createdAt: string;
  updatedAt: string;
}

type HookRow = typeof obHooks.$inferSelect;

const toHookView = (row: HookRow): HookView => ({
  hookHash: row.hookHash,
  url: row.url,
  redirectUrl: row.redirectUrl,
  events: row.events as HookEvent[],
  bodyFormat: row.bodyFormat,
  owner: row.userId ? 'user' : 'agent',
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** A hook of the agent by its hash, among those `owners` selects; undefined when there is none. */
async function findHook(
  db: Database,
  agentId: string,
  hookHash: string,
  owners: SQL | undefined,
): Promise<HookRow | undefined> {
  const [row] = await db
    .select()
    .from(obHooks)
    .where(and(eq(obHooks.hookHash, hookHash), eq(obHooks.agentId, agentId), owners))
    .limit(1);
  return row;
}

/**
 * A hook the user may use: the user's own or one its agent registered. Undefined when unknown or someone
 * else's. For the consent and payment use cases (`hookHash` from their bodies).
 */
export const findUsableHook = (db: Database, caller: UserIdentity, hookHash: string) =>
  findHook(db, caller.agentId, hookHash, or(eq(obHooks.userId, caller.userId), isNull(obHooks.userId)));

/** The agent's hook `hookHash` (whoever registered it), or 404. */
export async function requireAgentHook(db: Database, agentId: string, hookHash: string): Promise<void> {
  if (!(await findHook(db, agentId, hookHash, undefined))) throw Refusal.notFound('Hook');
}

export interface CreatedHook extends HookView {
  webhookEndpointId: string;
  signingSecret: string | null;
}

/**
 * Registers a hook of the caller and the agent's webhook endpoint for its URL (decision 0022), whose
 * signing secret is answered to the agent only (the endpoint's owner).
 */
export async function createHook(
  deps: UseCaseDeps,
  {
    caller,
    ...request
  }: {
    caller: HookCaller;
    url: string;
    redirectUrl?: string | undefined;
    events?: HookEvent[] | undefined;
    bodyFormat?: HookBodyFormat | undefined;
  },
): Promise<CreatedHook> {
  const { db, config } = deps;
  const [row] = await db
    .insert(obHooks)
    .values({
      hookHash: `hook_${randomBytes(24).toString('base64url')}`,
      agentId: caller.agentId,
      userId: caller.userId ?? null,
      url: request.url,
      redirectUrl: request.redirectUrl ?? null,
      events: request.events ? [...new Set(request.events)] : [...HOOK_EVENTS],
      bodyFormat: request.bodyFormat ?? 'envelope',
    })
    .returning();
  const key = webhookSecretKey(config);
  const { endpoint } = await ensureWebhookEndpoint(db, key, {
    service: 'openbanking',
    ownerId: caller.agentId,
    url: request.url,
  });
  return {
    ...toHookView(row!),
    webhookEndpointId: endpoint.id,
    signingSecret: caller.via === 'agent' ? currentSecretOf(key, endpoint) : null,
  };
}

/**
 * Attaches the URL the browser is sent to at the end to a hook the caller owns (a user owns its own; an
 * agent those it registered); another's or an unknown hook is 404. `checkUrl` is the outbound-URL check
 * of the registration (decision 0027), run once the hook is known.
 */
export async function setHookRedirect(
  deps: UseCaseDeps,
  {
    caller,
    checkUrl,
    ...request
  }: { caller: HookCaller; hookHash: string; redirectUrl: string; checkUrl: (url: string) => void },
): Promise<HookView> {
  const { db } = deps;
  const owners = caller.userId ? eq(obHooks.userId, caller.userId) : isNull(obHooks.userId);
  const hook = await findHook(db, caller.agentId, request.hookHash, owners);
  if (!hook) throw Refusal.notFound('Hook');
  checkUrl(request.redirectUrl);
  const [updated] = await db
    .update(obHooks)
    .set({ redirectUrl: request.redirectUrl, updatedAt: new Date() })
    .where(eq(obHooks.hookHash, hook.hookHash))
    .returning();
  return toHookView(updated!);
}
