import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { HookCaller } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import {
  type AdminIdentity,
  type AgentIdentity,
  type CredentialKind,
  isLiveUserOf,
  type ResolvedCredential,
  resolveCredential,
  type UserIdentity,
} from '../../credentials/openbanking/identity.ts';
import { verifyUserToken } from '../../credentials/openbanking/jws.ts';
import type { AppEnv } from '../shared/context.ts';

/**
 * Identity of open-banking callers: the layered headers of the spec.
 *
 *   x-agent-hash   the integrating partner (agent)          → requireAgent(c)  / optionalAgent(c)
 *   x-user-hash    a customer enrolled under an agent        → requireUser(c)   (or Authorization: Bearer <usertoken>)
 *   x-public-hash  an agent's public-tier (publishable) hash → requirePublic(c) / optionalPublic(c)
 *   x-admin-hash   a platform operator                        → requireAdmin(c)
 *   consent-details  context flag on AIS reads               → readConsentDetails(c)
 *
 * Use in a handler, first thing, then hand the returned ids to the use case, which scopes every query
 * by them:
 *
 * ```ts
 * handler: () => async (c) => {
 *   const user = await requireUser(c);                              // 401 when missing/unknown/deleted
 *   return c.json(await readBalance(c.get('deps'), user, ibanId), 200); // another user's account → 404
 * }
 * ```
 *
 * Ownership across layers: `requireAgentOwningUser(c, userId)` (agent + a user id it must have enrolled),
 * `requireAgentAndUser(c)` (both headers; the user must belong to that agent). Another agent's user is
 * 404 `not_found`, so existence is not leaked. Document the credential in the route with
 * `security: USER_SECURITY` (etc.); the schemes are registered by `registerIdentitySchemes(app)`.
 *
 * How hashes are issued, stored (as digests) and matched: credentials/openbanking/identity.ts.
 */

export const IDENTITY_HEADERS = {
  agent: 'x-agent-hash',
  user: 'x-user-hash',
  public: 'x-public-hash',
  admin: 'x-admin-hash',
} as const satisfies Record<CredentialKind, string>;

export const CONSENT_DETAILS_HEADER = 'consent-details';

// One lookup per presented credential and request, shared by the credential gate and the handler.
const lookups = new WeakMap<Request, Map<string, Promise<unknown>>>();
function memoized<T>(c: Context<AppEnv>, key: string, lookup: () => Promise<T>): Promise<T> {
  let perRequest = lookups.get(c.req.raw);
  if (!perRequest) {
    perRequest = new Map();
    lookups.set(c.req.raw, perRequest);
  }
  let result = perRequest.get(key) as Promise<T> | undefined;
  if (!result) {
    result = lookup();
    perRequest.set(key, result);
  }
  return result;
}

async function credentialOf(
  c: Context<AppEnv>,
  kind: CredentialKind,
  required: true,
): Promise<ResolvedCredential>;
async function credentialOf(
  c: Context<AppEnv>,
  kind: CredentialKind,
  required: false,
): Promise<ResolvedCredential | undefined>;
async function credentialOf(c: Context<AppEnv>, kind: CredentialKind, required: boolean) {
  const header = IDENTITY_HEADERS[kind];
  const presented = c.req.header(header);
  if (!presented) {
    if (required) throw Refusal.unauthorized(`The ${header} header is missing`);
    return undefined;
  }
  const credential = await memoized(c, `${kind}:${presented}`, () =>
    resolveCredential(c.get('deps').db, kind, presented),
  );
  // A header that is present but wrong is refused even where the header is optional.
  if (!credential) throw Refusal.unauthorized(`The ${header} header is not valid`);
  return credential;
}

/** The calling agent (x-agent-hash); 401 when missing or unknown. */
export async function requireAgent(c: Context<AppEnv>): Promise<AgentIdentity> {
  const credential = await credentialOf(c, 'agent', true);
  return { agentId: credential.agentId! };
}

/** The calling agent when x-agent-hash is sent (401 when sent but unknown), else undefined. */
export async function optionalAgent(c: Context<AppEnv>): Promise<AgentIdentity | undefined> {
  const credential = await credentialOf(c, 'agent', false);
  return credential ? { agentId: credential.agentId! } : undefined;
}

/** The agent of a public-tier call (x-public-hash); 401 when missing or unknown. */
export async function requirePublic(c: Context<AppEnv>): Promise<AgentIdentity> {
  const credential = await credentialOf(c, 'public', true);
  return { agentId: credential.agentId! };
}

export async function optionalPublic(c: Context<AppEnv>): Promise<AgentIdentity | undefined> {
  const credential = await credentialOf(c, 'public', false);
  return credential ? { agentId: credential.agentId! } : undefined;
}

/** A platform operator (x-admin-hash); 401 when missing or unknown. */
export async function requireAdmin(c: Context<AppEnv>): Promise<AdminIdentity> {
  const credential = await credentialOf(c, 'admin', true);
  return { credentialId: credential.credentialId };
}

/**
 * The calling user: x-user-hash, or else `Authorization: Bearer <user token>` (a token from POST
 * usertoken, verified against the gateway's signing keys and not expired). A deleted user is 401.
 */
export async function requireUser(c: Context<AppEnv>): Promise<UserIdentity> {
  const user = await optionalUser(c);
  if (!user) {
    throw Refusal.unauthorized(
      `The ${IDENTITY_HEADERS.user} header (or Authorization: Bearer <user token>) is missing`,
    );
  }
  return user;
}

/** The calling user by the x-user-hash header only (no bearer token: a token cannot mint tokens). */
export async function requireUserHash(c: Context<AppEnv>): Promise<UserIdentity> {
  const credential = await credentialOf(c, 'user', true);
  return { userId: credential.userId!, agentId: credential.agentId! };
}

/** The calling user when x-user-hash or a bearer user token is sent (401 when invalid), else undefined. */
export async function optionalUser(c: Context<AppEnv>): Promise<UserIdentity | undefined> {
  const credential = await credentialOf(c, 'user', false);
  if (credential) return { userId: credential.userId!, agentId: credential.agentId! };
  const bearer = bearerOf(c);
  if (!bearer) return undefined;
  const user = await memoized(c, `token:${bearer}`, () => userOfToken(c, bearer));
  if (!user) throw Refusal.unauthorized('The bearer user token is not valid or has expired');
  return user;
}

const bearerOf = (c: Context<AppEnv>) => /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];

async function userOfToken(c: Context<AppEnv>, token: string): Promise<UserIdentity | undefined> {
  const { db, config } = c.get('deps');
  const claims = await verifyUserToken(db, config, token);
  if (!claims) return undefined;
  return (await isLiveUserOf(db, claims)) ? claims : undefined;
}

/** The calling agent, which must have enrolled `userId`; another agent's (or a deleted) user is 404. */
export async function requireAgentOwningUser(c: Context<AppEnv>, userId: string): Promise<UserIdentity> {
  const { agentId } = await requireAgent(c);
  if (!(await isLiveUserOf(c.get('deps').db, { userId, agentId }))) throw Refusal.notFound('User');
  return { userId, agentId };
}

/** Both x-agent-hash and x-user-hash; the user must be one the agent enrolled (else 404). */
export async function requireAgentAndUser(c: Context<AppEnv>): Promise<UserIdentity> {
  const { agentId } = await requireAgent(c);
  const user = await requireUser(c);
  if (user.agentId !== agentId) throw Refusal.notFound('User');
  return user;
}

/**
 * The calling user of an account operation. With `agentHeader`, an x-agent-hash sent along must be the
 * user's agent, else 404 (as if the account were not the user's).
 */
export async function requireAccountUser(
  c: Context<AppEnv>,
  options: { agentHeader?: boolean } = {},
): Promise<UserIdentity> {
  const user = await requireUser(c);
  if (options.agentHeader) {
    const agent = await optionalAgent(c);
    if (agent && agent.agentId !== user.agentId) throw Refusal.notFound('Account');
  }
  return user;
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

/**
 * The `consent-details` header of AIS reads: `true` asks for each account's consent (status, validity,
 * bank) in the response. Absent means false; anything but true/false is 400 naming the header.
 */
export function readConsentDetails(c: Context<AppEnv>): boolean {
  const value = c.req.header(CONSENT_DETAILS_HEADER);
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw Refusal.field(CONSENT_DETAILS_HEADER, 'must be true or false');
}

// ─── OpenAPI: credentials as security schemes ───────────────────────────────────────────────────

export type IdentityScheme = 'agentHash' | 'userHash' | 'userToken' | 'publicHash' | 'adminHash';

/** OpenAPI security requirement: any one of the alternatives; each alternative needs all its schemes. */
export function security(
  ...alternatives: readonly (readonly IdentityScheme[])[]
): Record<string, string[]>[] {
  return alternatives.map((schemes) => Object.fromEntries(schemes.map((scheme) => [scheme, []])));
}

export const USER_SECURITY = security(['userHash'], ['userToken']);
export const AGENT_SECURITY = security(['agentHash']);
export const ADMIN_SECURITY = security(['adminHash']);
export const NO_SECURITY = security([]);

const SCHEME_KINDS: Record<Exclude<IdentityScheme, 'userToken'>, CredentialKind> = {
  agentHash: 'agent',
  userHash: 'user',
  publicHash: 'public',
  adminHash: 'admin',
};

const schemeLabel = (scheme: IdentityScheme) =>
  scheme === 'userToken' ? 'Authorization: Bearer <user token>' : IDENTITY_HEADERS[SCHEME_KINDS[scheme]];

/**
 * Route middleware added by mountOperations from the route's `security`: before the request is
 * validated, 401 when no alternative's credentials are all present, or when a presented credential of
 * the route is not valid. So a caller without credentials learns nothing about the request's shape.
 * Routes with an empty alternative (`{}`: public, or a credential carried in the body) are not gated.
 * Handlers still call requireUser(c) etc. for the identity (looked up once per request).
 */
export function credentialGate(
  alternatives: readonly Record<string, readonly string[]>[],
): MiddlewareHandler<AppEnv> {
  const schemes = alternatives.map((alternative) => Object.keys(alternative) as IdentityScheme[]);
  const isPublic = schemes.length === 0 || schemes.some((alternative) => alternative.length === 0);
  const used = [...new Set(schemes.flat())];
  return async (c, next) => {
    if (isPublic) return next();
    const presented = (scheme: IdentityScheme) =>
      scheme === 'userToken' ? bearerOf(c) !== undefined : c.req.header(schemeLabel(scheme)) !== undefined;
    if (!schemes.some((alternative) => alternative.every(presented))) {
      const options = schemes.map((alternative) => alternative.map(schemeLabel).join(' + ')).join(', or ');
      throw Refusal.unauthorized(`Missing credentials: send ${options}`);
    }
    for (const scheme of used) {
      if (!presented(scheme)) continue;
      if (scheme === 'userToken') {
        if (c.req.header(IDENTITY_HEADERS.user) === undefined) await optionalUser(c);
      } else {
        await credentialOf(c, SCHEME_KINDS[scheme], false);
      }
    }
    await next();
  };
}

/** Registers the identity headers as OpenAPI security schemes (called once by the gateway app). */
export function registerIdentitySchemes(app: OpenAPIHono<AppEnv>): void {
  const header = (name: string, description: string) =>
    ({ type: 'apiKey', in: 'header', name, description }) as const;
  const registry = app.openAPIRegistry;
  registry.registerComponent(
    'securitySchemes',
    'agentHash',
    header('x-agent-hash', 'Agent hash, issued by POST /api/{7,8}/signup/agent'),
  );
  registry.registerComponent(
    'securitySchemes',
    'userHash',
    header('x-user-hash', 'User hash, issued to the agent by POST /api/{6,7,8}/signup'),
  );
  registry.registerComponent('securitySchemes', 'userToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'User token from POST /api/{6,7,8}/usertoken; accepted wherever x-user-hash is',
  });
  registry.registerComponent(
    'securitySchemes',
    'publicHash',
    header('x-public-hash', "An agent's public-tier hash, issued with its agent hash"),
  );
  registry.registerComponent(
    'securitySchemes',
    'adminHash',
    header('x-admin-hash', 'Operator hash, issued by `npm run admin -- openbanking:admin-hash`'),
  );
}
