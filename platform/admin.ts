import path from 'node:path';
import { parseArgs } from 'node:util';
import { issueAccessToken, revokeAccessToken } from '../api/messaging/auth.ts';
import { openDatabase } from '../db/client.ts';
import { loadConfigOrExit } from './config.ts';

/**
 * Operator commands, run against the configured database:
 *   npm run admin -- messaging:token --name "Acme Ltd"      new account + access token
 *   npm run admin -- messaging:token --account acc_...      another token for an account
 *   npm run admin -- messaging:revoke --token-id tok_...    revoke a token
 */
const USAGE = `usage:
  npm run admin -- messaging:token --name "<account name>"
  npm run admin -- messaging:token --account <accountId> [--label <label>]
  npm run admin -- messaging:revoke --token-id <tokenId>`;

const config = loadConfigOrExit();
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    account: { type: 'string' },
    label: { type: 'string' },
    'token-id': { type: 'string' },
  },
});

const database = await openDatabase({
  url: config.DATABASE_URL,
  pgliteDir: path.join(config.DATA_DIR, 'pglite'),
});
try {
  switch (positionals[0]) {
    case 'messaging:token': {
      if (!values.name && !values.account) throw new Error(`--name or --account is required\n${USAGE}`);
      const issued = await issueAccessToken(database.db, {
        accountName: values.name ?? '',
        label: values.label ?? 'admin',
        ...(values.account ? { accountId: values.account } : {}),
      });
      console.log(JSON.stringify(issued, null, 2));
      console.log('Keep the token now: only its hash is stored.');
      break;
    }
    case 'messaging:revoke': {
      if (!values['token-id']) throw new Error(`--token-id is required\n${USAGE}`);
      console.log(
        (await revokeAccessToken(database.db, values['token-id'])) ? 'revoked' : 'no such active token',
      );
      break;
    }
    default:
      throw new Error(USAGE);
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 2;
} finally {
  await database.close();
}
