import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import { resolveApiKey, tenantOfSiteDomain } from '../../credentials/lending/api-keys.ts';
import { userOfToken } from '../../credentials/lending/users.ts';
import type { LendingPermission, LendingUser } from '../../domain/lending/tenancy.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { defineOperation, type OperationDefinition } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';

/**
 * Who may call a lending operation (decision 0037), checked by `lendingCredentialGate` before the
 * request is validated:
 *
 * 1. `lender_ApiKey` on every call: a live key (not expired, not revoked); else 401 `unauthorized`.
 *    The request acts in the key's tenant.
 * 2. Where the request's Host is a tenant's configured site domain, it must be the key's tenant;
 *    else 401 `unauthorized` (a key of tenant A is refused on tenant B's site).
 * 3. The key's permission levels must include the level of the path's module; else 403
 *    `insufficient_permission`: Customer/*, User/*, Dictionary/* need front_office; Management/*
 *    (and its /Migration/ aliases) management; PaymentOptions/* payment_options.
 * 4. Where the route's security names `lenderUserAuthToken`, a live `lender_UserAuthToken` of the
 *    same tenant; else 401 `unauthorized`. Handlers read the person with `c.get('lendingUser')` or
 *    `requireCustomer(c)`.
 *
 * A route declares `security: lendingSecurity.apiKey` or `lendingSecurity.user`.
 */

export const API_KEY_HEADER = 'lender_ApiKey';
export const USER_TOKEN_HEADER = 'lender_UserAuthToken';

type SecurityRequirements = NonNullable<RouteConfig['security']>;

export const lendingSecurity: { apiKey: SecurityRequirements; user: SecurityRequirements } = {
  apiKey: [{ lenderApiKey: [] }],
  user: [{ lenderApiKey: [], lenderUserAuthToken: [] }],
};

/** The documented errors of every lending operation: the platform's, and 403 for a key of another level. */
export const lendingErrorResponses = {
  ...errorResponses,
  401: {
    description:
      'Missing, unknown, expired or revoked `lender_ApiKey` (or user token); a key of another tenant on this site',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  403: {
    description: '`insufficient_permission`: the key lacks the permission level of this module',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

/**
 * `defineOperation` for the lending platform: unversioned paths (`lendingPath(...)`), LendingEnv. Its
 * aliases are the spec's own `/Migration/` paths: documented in `/lending/openapi.json` too.
 */
export const defineLendingOperation = <R extends RouteConfig>(
  definition: OperationDefinition<'none', R, LendingEnv>,
) => defineOperation<'none', R, LendingEnv>({ documentAliases: true, ...definition });

/** The module of a lending path and the permission level it needs (undefined: not a lending module). */
const MODULE_PERMISSIONS: Record<string, LendingPermission> = {
  Customer: 'front_office',
  User: 'front_office',
  Dictionary: 'front_office',
  // The front site's other modules (served in a later issue).
  Investor: 'front_office',
  Files: 'front_office',
  UserDocuments: 'front_office',
  Settings: 'front_office',
  Vendors: 'front_office',
  Management: 'management',
  Migration: 'management',
  PaymentOptions: 'payment_options',
};

export function permissionOfPath(path: string): LendingPermission | undefined {
  const module = /\/PublicApi\/v7-12\/([^/]+)/.exec(path)?.[1];
  return module ? MODULE_PERMISSIONS[module] : undefined;
}

const PERMISSION_NAMES: Record<LendingPermission, string> = {
  front_office: 'Front-office',
  management: 'Management',
  payment_options: 'Payment options',
};

/**
 * mountOperations' credentialGate for the lending app: the checks above, in that order, then the
 * tenant, the key's permissions and (when asked) the user on the context. `permission` names the level
 * of routes outside the spec's modules (the webhook routes: Management, decision 0088).
 */
export function lendingCredentialGate(
  alternatives: SecurityRequirements,
  permission?: LendingPermission,
): MiddlewareHandler<LendingEnv> {
  const needsUser = alternatives.some((alternative) => 'lenderUserAuthToken' in alternative);
  return async (c, next) => {
    const { db } = c.get('deps');
    const presentedKey = c.req.header(API_KEY_HEADER);
    if (!presentedKey) throw Refusal.unauthorized(`The ${API_KEY_HEADER} header is missing`);
    const key = await resolveApiKey(db, presentedKey);
    if (!key) throw Refusal.unauthorized(`The ${API_KEY_HEADER} is not valid, has expired or was revoked`);

    const host = c.req.header('host');
    const siteTenant = host ? await tenantOfSiteDomain(db, host) : undefined;
    if (siteTenant !== undefined && siteTenant !== key.tenant.id) {
      throw Refusal.unauthorized(`The ${API_KEY_HEADER} does not belong to the tenant of this site`);
    }

    const needed = permission ?? permissionOfPath(c.req.path);
    if (!needed || !key.permissions.includes(needed)) {
      throw new Refusal(
        403,
        'insufficient_permission',
        needed
          ? `This operation needs a key with the ${PERMISSION_NAMES[needed]} permission level`
          : 'No permission level reaches this path',
      );
    }
    c.set('lendingTenant', key.tenant);
    c.set('lendingPermissions', key.permissions);

    if (needsUser) {
      const presentedToken = c.req.header(USER_TOKEN_HEADER);
      if (!presentedToken) throw Refusal.unauthorized(`The ${USER_TOKEN_HEADER} header is missing`);
      const user = await userOfToken(db, key.tenant.id, presentedToken);
      if (!user) {
        throw Refusal.unauthorized(`The ${USER_TOKEN_HEADER} is not valid for this tenant, or has expired`);
      }
      const { tokenDigest, ...person } = user;
      c.set('lendingUser', person);
      userTokenDigests.set(c.req.raw, tokenDigest);
    }
    await next();
  };
}

/** The digest of the token a request presented (User/ChangePassword keeps that one signed in). */
const userTokenDigests = new WeakMap<Request, string>();

export function presentedUserTokenDigest(c: Context<LendingEnv>): string {
  const digest = userTokenDigests.get(c.req.raw);
  if (!digest) throw Refusal.unauthorized(`The ${USER_TOKEN_HEADER} header is missing`);
  return digest;
}

/** The person of the user token (401 when the route did not ask for one). */
export function requireUser(c: Context<LendingEnv>): LendingUser {
  const user = c.get('lendingUser');
  if (!user) throw Refusal.unauthorized(`The ${USER_TOKEN_HEADER} header is missing`);
  return user;
}

/**
 * The customer the user token acts for: 401 without a user, 403 `not_a_customer` for a user who is
 * not a customer (an investor).
 */
export function requireCustomer(c: Context<LendingEnv>): LendingUser & { customerId: string } {
  const user = requireUser(c);
  if (user.role !== 'customer' || !user.customerId) {
    throw new Refusal(
      403,
      'not_a_customer',
      'This operation acts for a customer; the user token is not a customer’s',
    );
  }
  return { ...user, customerId: user.customerId };
}

/** Registers the two credentials as OpenAPI security schemes (called once by the lending app). */
export function registerLendingSecuritySchemes(app: OpenAPIHono<LendingEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'lenderApiKey', {
    type: 'apiKey',
    in: 'header',
    name: API_KEY_HEADER,
    description:
      'A tenant’s API key with permission levels (Front-office: Customer, Investor, User, Dictionary, Settings, ' +
      'Vendors, Files, UserDocuments; Management: Management and Migration; Payment options: PaymentOptions), issued by the platform operator (`npm run admin -- lending:api-key`).',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'lenderUserAuthToken', {
    type: 'apiKey',
    in: 'header',
    name: USER_TOKEN_HEADER,
    description:
      'A user token from Customer/Register or User/Login (LENDING_USER_TOKEN_TTL, 12 hours by default).',
  });
}
