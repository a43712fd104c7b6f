import { z } from '@hono/zod-openapi';
import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { obHooks } from '../../db/schema/openbanking.ts';
import { HOOK_EVENTS } from '../../domain/openbanking/hook-events.ts';
import type { AppEnv } from '../shared/context.ts';
import { optionalAgent, optionalPublic, optionalUser } from './identity.ts';

/**
 * Hooks, as the hook operations answer and check them: `POST /api/{6,7,8,9}/createhook` registers a URL called back when adding IBANs or a payment
 * finishes, and returns its hook hash; `PUT /api/{6,7,8}/redirect` attaches the URL the user's browser is
 * sent to when the process finishes.
 *
 * Owner: the caller. With x-user-hash (or a user token) the hook is the user's; with x-agent-hash it is
 * the agent's, usable for all its users; version 9 also accepts x-public-hash (the agent's public tier).
 * With none of them 401. A hook hash is an identifier, not a credential: every use checks its owner.
 */

export type HookRow = typeof obHooks.$inferSelect;

export const hookSchema = z
  .object({
    hookHash: z
      .string()
      .openapi({ description: 'Pass it to the consent and payment operations', example: 'hook_Xc2...' }),
    url: z.string(),
    redirectUrl: z.string().nullable(),
    events: z.array(z.enum(HOOK_EVENTS)),
    owner: z
      .enum(['user', 'agent'])
      .openapi({ description: 'Registered by a user, or by the agent for all its users' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Hook');

export const toHookRecord = (row: HookRow): z.infer<typeof hookSchema> => ({
  hookHash: row.hookHash,
  url: row.url,
  redirectUrl: row.redirectUrl,
  events: row.events as z.infer<typeof hookSchema>['events'],
  owner: row.userId ? 'user' : 'agent',
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export interface HookCaller {
  agentId: string;
  userId?: string;
  /** Which identity called: only `agent` owns the agent's webhook endpoints (and reads their secrets). */
  via?: 'user' | 'agent' | 'public';
}

/** Who registers or changes a hook: the user, else the agent, else (where allowed) the public hash. */
export async function hookCaller(c: Context<AppEnv>, options: { publicHash: boolean }): Promise<HookCaller> {
  const user = await optionalUser(c);
  if (user) return { ...user, via: 'user' };
  const agent = await optionalAgent(c);
  if (agent) return { ...agent, via: 'agent' };
  if (options.publicHash) {
    const publicTier = await optionalPublic(c);
    if (publicTier) return { ...publicTier, via: 'public' };
  }
  throw Refusal.unauthorized(
    `One of the x-user-hash, x-agent-hash${options.publicHash ? ', x-public-hash' : ''} headers is required`,
  );
}

/** A hook of the agent by its hash, among those `owners` selects; undefined when there is none. */
export async function findHook(
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
 * else's. For the consent and payment operations (pass `hookHash` from their bodies).
 */
export const findUsableHook = (db: Database, caller: { agentId: string; userId: string }, hookHash: string) =>
  findHook(db, caller.agentId, hookHash, or(eq(obHooks.userId, caller.userId), isNull(obHooks.userId)));

/** A hook the caller owns (a user owns its own; an agent owns those it registered). */
export const findOwnedHook = (db: Database, caller: HookCaller, hookHash: string) =>
  findHook(
    db,
    caller.agentId,
    hookHash,
    caller.userId ? eq(obHooks.userId, caller.userId) : isNull(obHooks.userId),
  );
