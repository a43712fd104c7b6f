import { randomBytes } from 'node:crypto';
import { hashAccessToken } from '../credentials/messaging/access-tokens.ts';
import { grantSenders } from '../credentials/messaging/senders.ts';
import type { Database } from '../db/client.ts';
import { messagingAccessTokens, messagingAccounts } from '../db/schema/messaging.ts';
import type { Config } from '../platform/config.ts';

/** Lending's account at the messaging gateway in sandbox mode. */
export const SANDBOX_LENDING_MESSAGING_ACCOUNT = 'acc_lending';

/**
 * Sandbox mode: gives the lending platform its messaging account as an operator would (decision 0040):
 * the access token of LENDING_MESSAGING_TOKEN (generated when unset, and set in `config` before the API
 * serves) and the sender ID LENDING_MESSAGING_SENDER approved, so that signing codes go out on a fresh
 * `npm start` and in the tests. Production provisions nothing: the operator issues the token
 * (`npm run admin -- messaging:token --name Lending`) and has the sender ID approved.
 */
export async function provisionSandboxLendingMessaging(db: Database, config: Config): Promise<void> {
  if (config.PLATFORM_MODE !== 'sandbox') return;
  config.LENDING_MESSAGING_TOKEN ??= `at_${randomBytes(32).toString('base64url')}`;
  const tokenHash = hashAccessToken(config.LENDING_MESSAGING_TOKEN);
  await db
    .insert(messagingAccounts)
    .values({ id: SANDBOX_LENDING_MESSAGING_ACCOUNT, name: 'Lending platform' })
    .onConflictDoNothing();
  await db
    .insert(messagingAccessTokens)
    .values({
      id: `tok_${SANDBOX_LENDING_MESSAGING_ACCOUNT}`,
      accountId: SANDBOX_LENDING_MESSAGING_ACCOUNT,
      tokenHash,
      label: 'lending (sandbox)',
    })
    .onConflictDoUpdate({ target: messagingAccessTokens.id, set: { tokenHash, revokedAt: null } });
  await grantSenders(db, SANDBOX_LENDING_MESSAGING_ACCOUNT, {
    senderIds: [config.LENDING_MESSAGING_SENDER],
    reason: 'sandbox: the lending platform’s signing codes',
  });
}
