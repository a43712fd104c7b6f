import type { RouteConfig } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { Refusal } from '../../application/shared/refusal.ts';
import { accountOfAccessToken } from '../../credentials/messaging/access-tokens.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation, type OperationDefinition } from '../shared/operation.ts';

export interface MessagingEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { accountId: string };
}

/** Requires a valid access token in the `at` query parameter and puts its account on the context. */
export const requireAccessToken = createMiddleware<MessagingEnv>(async (c, next) => {
  const token = c.req.query('at');
  if (!token) throw Refusal.unauthorized('The access token (query parameter `at`) is missing');
  const accountId = await accountOfAccessToken(c.get('deps').db, token);
  if (!accountId) throw Refusal.unauthorized('The access token (query parameter `at`) is not valid');
  c.set('accountId', accountId);
  await next();
});

/**
 * `defineOperation` for the messaging gateway: its operations are unversioned and their handlers see
 * the account of the access token (`c.get('accountId')`), checked before any operation runs.
 */
export const defineMessagingOperation = <R extends RouteConfig>(
  definition: OperationDefinition<'none', R, MessagingEnv>,
) => defineOperation<'none', R, MessagingEnv>(definition);
