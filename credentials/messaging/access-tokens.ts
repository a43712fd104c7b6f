import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingAccessTokens, messagingAccounts } from '../../db/schema/messaging.ts';
import { credentialCache, forgetCredentials } from '../shared/credential-cache.ts';
import { grantSenders } from './senders.ts';

/**
 * Access tokens of the messaging gateway (the `at` query parameter): issued to an account, stored
 * hashed, checked on every request (api/messaging/auth.ts), revoked by the admin API.
 */

/** Tokens are 32 random bytes; only their SHA-256 is stored, so a database leak reveals no token. */
export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const accessTokens = credentialCache<string>({
  name: 'messaging-access-tokens',
  tables: [messagingAccessTokens, messagingAccounts],
});

/** The account a token belongs to, or undefined when the token is unknown or revoked. */
export async function accountOfAccessToken(db: Database, token: string): Promise<string | undefined> {
  const tokenHash = hashAccessToken(token);
  return accessTokens.lookup(db, tokenHash, async () => {
    const [row] = await db
      .select({ accountId: messagingAccessTokens.accountId })
      .from(messagingAccessTokens)
      .where(and(eq(messagingAccessTokens.tokenHash, tokenHash), isNull(messagingAccessTokens.revokedAt)))
      .limit(1);
    return row?.accountId;
  });
}

export interface IssuedToken {
  accountId: string;
  tokenId: string;
  /** Shown once; only its hash is kept. */
  token: string;
}

/** Creates an account (when `accountId` is not given) and issues an access token for it. */
export async function issueAccessToken(
  db: Database,
  options: { accountName: string; label: string; accountId?: string },
): Promise<IssuedToken> {
  const accountId = options.accountId ?? `acc_${randomUUID().replaceAll('-', '')}`;
  if (!options.accountId)
    await db.insert(messagingAccounts).values({ id: accountId, name: options.accountName });
  const token = `at_${randomBytes(32).toString('base64url')}`;
  const tokenId = `tok_${randomUUID().replaceAll('-', '')}`;
  await db
    .insert(messagingAccessTokens)
    .values({ id: tokenId, accountId, tokenHash: hashAccessToken(token), label: options.label });
  return { accountId, tokenId, token };
}

/** Another access token for an existing account; undefined when there is no such account. */
export async function issueAccountToken(
  db: Database,
  { accountId, label }: { accountId: string; label: string },
): Promise<IssuedToken | undefined> {
  const [account] = await db
    .select({ id: messagingAccounts.id })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, accountId));
  return account ? issueAccessToken(db, { accountName: '', label, accountId }) : undefined;
}

export async function revokeAccessToken(db: Database, tokenId: string): Promise<boolean> {
  const rows = await db
    .update(messagingAccessTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(messagingAccessTokens.id, tokenId), isNull(messagingAccessTokens.revokedAt)))
    .returning({ id: messagingAccessTokens.id });
  forgetCredentials(db, messagingAccessTokens);
  return rows.length > 0;
}

export const SANDBOX_ACCOUNT_ID = 'acc_sandbox';

/**
 * What the sandbox account may send from without the proof (decision 0028), so that `npm run demo` and
 * the examples of docs/messaging.md work on a fresh `npm start`: granted in sandbox mode only.
 */
export const SANDBOX_SENDERS = { numbers: ['+359888000111'], senderIds: ['DEMO'] } as const;

/**
 * Issues the sandbox account's token for `npm start` to print, revoking the previous one: tokens are
 * stored hashed, so an earlier token cannot be shown again.
 */
export async function rotateSandboxToken(db: Database): Promise<IssuedToken> {
  await db
    .insert(messagingAccounts)
    .values({ id: SANDBOX_ACCOUNT_ID, name: 'Sandbox' })
    .onConflictDoNothing();
  await db
    .update(messagingAccessTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(eq(messagingAccessTokens.accountId, SANDBOX_ACCOUNT_ID), isNull(messagingAccessTokens.revokedAt)),
    );
  forgetCredentials(db, messagingAccessTokens);
  await grantSenders(db, SANDBOX_ACCOUNT_ID, { ...SANDBOX_SENDERS, reason: 'sandbox account (npm start)' });
  return issueAccessToken(db, { accountName: 'Sandbox', label: 'sandbox', accountId: SANDBOX_ACCOUNT_ID });
}
