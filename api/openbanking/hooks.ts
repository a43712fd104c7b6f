import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Database } from '../../db/client.ts';
import { obHooks } from '../../db/schema/openbanking.ts';
import { HOOK_EVENTS } from '../../domain/openbanking/hook-events.ts';
import type { AppEnv } from '../shared/context.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { optionalAgent, optionalPublic, optionalUser, security } from './identity.ts';
import { webUrlField } from './users.ts';

/**
 * Hooks: `POST /api/{6,7,8,9}/createhook` registers a URL called back when adding IBANs or a payment
 * finishes, and returns its hook hash; `PUT /api/{6,7,8}/redirect` attaches the URL the user's browser is
 * sent to when the process finishes.
 *
 * Owner: the caller. With x-user-hash (or a user token) the hook is the user's; with x-agent-hash it is
 * the agent's, usable for all its users; version 9 also accepts x-public-hash (the agent's public tier).
 * With none of them 401. A hook hash is an identifier, not a credential: every use checks its owner.
 */

export type HookRow = typeof obHooks.$inferSelect;

/** AdditionalURLsHookDTO: the hook's URL plus the additional (redirect) URL and the events it wants. */
const hookBody = z
  .object({
    url: webUrlField.openapi({ description: 'Called back (POST) when a result is available' }),
    redirectUrl: webUrlField.optional().openapi({
      description: 'Where the user’s browser is sent when the process finishes',
      example: 'https://agent.example.com/done',
    }),
    events: z
      .array(z.enum(HOOK_EVENTS))
      .min(1)
      .max(HOOK_EVENTS.length)
      .optional()
      .openapi({ description: 'Events to receive; all when omitted', example: ['consent.finished'] }),
  })
  .openapi('AdditionalURLsHookDTO');

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

interface HookCaller {
  agentId: string;
  userId?: string;
}

/** Who registers or changes a hook: the user, else the agent, else (where allowed) the public hash. */
async function hookCaller(c: Context<AppEnv>, options: { publicHash: boolean }): Promise<HookCaller> {
  const user = await optionalUser(c);
  if (user) return user;
  const agent = await optionalAgent(c);
  if (agent) return agent;
  if (options.publicHash) {
    const publicTier = await optionalPublic(c);
    if (publicTier) return publicTier;
  }
  throw ApiError.unauthorized(
    `One of the x-user-hash, x-agent-hash${options.publicHash ? ', x-public-hash' : ''} headers is required`,
  );
}

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
 * else's. For the consent and payment operations (pass `hookHash` from their bodies).
 */
export const findUsableHook = (db: Database, caller: { agentId: string; userId: string }, hookHash: string) =>
  findHook(db, caller.agentId, hookHash, or(eq(obHooks.userId, caller.userId), isNull(obHooks.userId)));

/** A hook the caller owns (a user owns its own; an agent owns those it registered). */
const findOwnedHook = (db: Database, caller: HookCaller, hookHash: string) =>
  findHook(
    db,
    caller.agentId,
    hookHash,
    caller.userId ? eq(obHooks.userId, caller.userId) : isNull(obHooks.userId),
  );

const createHook = defineOperation({
  versions: [6, 7, 8, 9],
  route: (v) =>
    createRoute({
      method: 'post',
      path: '/createhook',
      operationId: 'createHook',
      tags: ['Hooks'],
      summary: 'Register a hook',
      description:
        'Registers a callback URL and returns its `hookHash`. Body: AdditionalURLsHookDTO. The caller owns it: ' +
        (v === 9
          ? '`x-user-hash`, `x-agent-hash` or (version 9) `x-public-hash`; '
          : '`x-user-hash` or `x-agent-hash`; ') +
        'with none of them 401.',
      security:
        v === 9
          ? security(['userHash'], ['userToken'], ['agentHash'], ['publicHash'])
          : security(['userHash'], ['userToken'], ['agentHash']),
      request: { body: jsonBody(hookBody) },
      responses: {
        201: { description: 'Registered', content: { 'application/json': { schema: hookSchema } } },
        ...errorResponses,
      },
    }),
  handler: (v) => async (c) => {
    const caller = await hookCaller(c, { publicHash: v === 9 });
    const body = c.req.valid('json');
    const [row] = await c
      .get('deps')
      .db.insert(obHooks)
      .values({
        hookHash: `hook_${randomBytes(24).toString('base64url')}`,
        agentId: caller.agentId,
        userId: caller.userId ?? null,
        url: body.url,
        redirectUrl: body.redirectUrl ?? null,
        events: body.events ? [...new Set(body.events)] : [...HOOK_EVENTS],
      })
      .returning();
    return c.json(toHookRecord(row!), 201);
  },
});

const putRedirect = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'put',
      path: '/redirect',
      operationId: 'putRedirect',
      tags: ['Hooks'],
      summary: 'Attach a redirect URL to a hook',
      description:
        'Sets the hook’s `redirectUrl` (replacing an earlier one). Only the hook’s owner may: a user its own hooks, ' +
        'an agent the hooks it registered; an unknown hook or someone else’s is 404.',
      security: security(['userHash'], ['userToken'], ['agentHash']),
      request: {
        query: z.object({
          hookhash: z
            .string()
            .min(1)
            .max(100)
            .openapi({ description: 'The hook hash', example: 'hook_Xc2...' }),
          redirectUrl: webUrlField.openapi({ example: 'https://agent.example.com/done' }),
        }),
      },
      responses: {
        200: { description: 'The hook', content: { 'application/json': { schema: hookSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const caller = await hookCaller(c, { publicHash: false });
    const { hookhash, redirectUrl } = c.req.valid('query');
    const { db } = c.get('deps');
    const hook = await findOwnedHook(db, caller, hookhash);
    if (!hook) throw ApiError.notFound('Hook');
    const [updated] = await db
      .update(obHooks)
      .set({ redirectUrl, updatedAt: new Date() })
      .where(eq(obHooks.hookHash, hook.hookHash))
      .returning();
    return c.json(toHookRecord(updated!), 200);
  },
});

export const hookOperations = [createHook, putRedirect];
