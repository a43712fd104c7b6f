import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { collect } from '../application/collect/index.ts';
import { lending } from '../application/lending/index.ts';
import { DEFAULT_PRICE_LIST, messaging } from '../application/messaging/index.ts';
import { Refusal } from '../application/shared/refusal.ts';
import { createDeskOperator } from '../credentials/collect/desk-operators.ts';
import { createMerchant, setNotifyUrl, setReturnOrigins } from '../credentials/collect/merchants.ts';
import { issueApiKey, LENDING_PERMISSIONS, revokeApiKey } from '../credentials/lending/api-keys.ts';
import { COLLECT_MIN_PATTERN, saveCollectMerchant } from '../credentials/lending/collect-merchants.ts';
import { createLendingTenant } from '../credentials/lending/tenants.ts';
import { issueAccessToken, revokeAccessToken } from '../credentials/messaging/access-tokens.ts';
import { decideSenderId, senderIdsAwaitingApproval } from '../credentials/messaging/senders.ts';
import { enrolAgent, issueAdminHash } from '../credentials/openbanking/identity.ts';
import { rotateSigningKey } from '../credentials/openbanking/jws.ts';
import { type DatabaseHandle, openDatabase } from '../db/client.ts';
import { ledgerAccountKinds } from '../domain/collect/ledger.ts';
import { parseDurationMs } from '../domain/durations.ts';
import { creditProductSchema } from '../domain/lending/credit-products.ts';
import { referenceDataSeedSchema } from '../domain/lending/reference-data.ts';
import { loadConfigOrExit } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { findRunningStack } from '../platform/running-stack.ts';
import {
  AdminApiRefusal,
  AdminUsageError,
  isAdminCommand,
  ONCE_NOTES,
  runThroughStack,
  SEED_FILE,
  sweptLine,
} from './admin-remote.ts';
import { connectTemporal } from './runtime.ts';

/**
 * Operator commands, run against the configured database — or, without DATABASE_URL while `npm start` or
 * `npm run stack` runs on the same DATA_DIR (DATA_DIR/stack.json), through that platform's admin API
 * (cmd/admin-remote.ts; decision 0080):
 *   npm run admin -- messaging:token --name "Acme Ltd"      new account + access token
 *   npm run admin -- messaging:token --account acc_...      another token for an account
 *   npm run admin -- messaging:revoke --token-id tok_...    revoke a token
 *   npm run admin -- messaging:sender-ids                   sender IDs waiting for approval
 *   npm run admin -- messaging:approve-sender-id --id <id> --reason "..." [--note "..."]
 *   npm run admin -- messaging:reject-sender-id --id <id> --reason "..." [--note "..."]
 *   npm run admin -- messaging:price-list --account <id>|--default <file.csv>   SMS price list (0056)
 *   npm run admin -- messaging:number --account <id> --number +359... [--inbound-url URL]   assign a
 *                    number: its SMS become the account's `message.inbound` events (0087)
 *   npm run admin -- messaging:carrier --name <name> <carrier.json>   create or change an SMS carrier (0079)
 *   npm run admin -- messaging:carriers | messaging:routes   the SMS carriers (no passwords), the routes
 *   npm run admin -- messaging:route --name <name> <route.json>       create or change an SMS route (0079)
 *                    (the decision goes through the registration's workflow: Temporal must be running)
 *   npm run admin -- collect:merchant --name "Acme Ltd" [--min D123456789] [--notify-url URL]
 *                    [--billing-url URL] [--billing-prefix 97] [--return-origin https://shop.example]...
 *                    payment-collection merchant + secret
 *   npm run admin -- collect:return-origins --min D123456789 [--return-origin https://shop.example]...
 *                    where the card page honours URL_OK / URL_CANCEL form fields (none: signed ones only)
 *   npm run admin -- collect:notify-url --min D123456789 [--notify-url URL]
 *                    where the merchant's notifications go (none: kept, not sent); prints the previous one
 *   npm run admin -- collect:desk-operator --login sofia-01 --name "..." --office-id 000123
 *                    [--office-kind office|atm] [--password ...]   cash-desk operator + password (shown once)
 *   npm run admin -- collect:balances [--kind merchant] [--currency BGN]   the collect ledger's balances
 *   npm run admin -- collect:statement <file.xml>   import a camt.052/053/054 bank statement (Temporal must run)
 *   npm run admin -- openbanking:agent --name "Acme Ltd" [--email a@b.c]   agent hash + public hash
 *   npm run admin -- openbanking:admin-hash [--label "back office"]        x-admin-hash
 *   npm run admin -- openbanking:rotate-keys                              new signing key (JWKS)
 *   npm run admin -- lending:tenant --name "Acme Loans" [--domain loans.acme.example] [--staging-domain ...]
 *                    [--state-management] [--multiple-offers] [--states CA,NY]   tenant + its staging tenant
 *   npm run admin -- lending:api-key --tenant ten_... --level front_office[,management,payment_options]
 *                    [--label "front site"] [--expires 2027-12-31]   a lender_ApiKey (shown once)
 *   npm run admin -- lending:revoke-key --key-id key_...
 *   npm run admin -- lending:unlock-login --tenant ten_... --login <login>   lift User/Login's block or lock
 *   npm run admin -- lending:credit-product --tenant ten_... <product.json>   create or replace a credit
 *                    product (its Name inside the file; decision 0038)
 *   npm run admin -- lending:credit-products --tenant ten_...             a tenant's credit products
 *   npm run admin -- lending:files-sweep [1h]   remove file content without a row (a crash mid-upload), older than 1h
 *   npm run admin -- lending:collect-merchant --tenant ten_... --min D123456789 --secret ...   the tenant's
 *                    merchant at the collection gateway (secret stored encrypted; decision 0041)
 *   npm run admin -- lending:reference-data --tenant ten_... [<file.json>]   a tenant's dictionaries, settings,
 *                    vendors and stores; with a file, writes what it names (created or replaced)
 *   npm run admin -- lending:seed-reference-data --tenant ten_... [<file.json>]   the sandbox seed
 *                    (default datasets/lending-reference-data.json)
 *   npm run admin -- lending:delete-dictionary --tenant ten_... --name <dictionary>
 */

const USAGE = `usage:
  npm run admin -- messaging:token --name "<account name>"
  npm run admin -- messaging:token --account <accountId> [--label <label>]
  npm run admin -- messaging:revoke --token-id <tokenId>
  npm run admin -- messaging:sender-ids
  npm run admin -- messaging:approve-sender-id --id <registration id> --reason "<why>" [--note "<note>"]
  npm run admin -- messaging:reject-sender-id --id <registration id> --reason "<why>" [--note "<note>"]
  npm run admin -- messaging:price-list --account <accountId>|--default <price list CSV file>
  npm run admin -- messaging:number --account <accountId> --number <E.164> [--inbound-url <url>]
  npm run admin -- messaging:carrier --name <carrier> <carrier JSON file: url, systemId, password, window, submitRate, longMessages, enabled>
  npm run admin -- messaging:carriers
  npm run admin -- messaging:route --name <route> <route JSON file: prefix, mccMnc, priority, carriers, enabled>
  npm run admin -- messaging:routes
  npm run admin -- collect:merchant --name "<merchant name>" [--min D123456789] [--notify-url <url>] [--billing-url <url>] [--billing-prefix <9...>] [--return-origin <https://origin>]...
  npm run admin -- collect:return-origins --min <D123456789> [--return-origin <https://origin>]...
  npm run admin -- collect:notify-url --min <D123456789> [--notify-url <url>]
  npm run admin -- collect:desk-operator --login <login> --name "<name>" --office-id <6 digits> [--office-kind office|atm] [--password <password>]
  npm run admin -- collect:balances [--kind merchant|provider|desk_cash|payouts_owed|bank_settlement|acquirer|fees] [--currency BGN]
  npm run admin -- collect:statement <camt.052, camt.053 or camt.054 file>
  npm run admin -- openbanking:agent --name "<agent name>" [--email <e-mail>]
  npm run admin -- openbanking:admin-hash [--label <label>]
  npm run admin -- openbanking:rotate-keys
  npm run admin -- lending:tenant --name "<tenant name>" [--domain <site domain>]... [--staging-domain <domain>]... [--state-management] [--multiple-offers] [--states CA,NY]
  npm run admin -- lending:api-key --tenant <tenantId> --level front_office|management|payment_options[,...] [--label <label>] [--expires <ISO date>]
  npm run admin -- lending:revoke-key --key-id <keyId>
  npm run admin -- lending:unlock-login --tenant <tenantId> --login <login>
  npm run admin -- lending:credit-product --tenant <tenantId> <product JSON file>
  npm run admin -- lending:credit-products --tenant <tenantId>
  npm run admin -- lending:files-sweep [<age, default 1h>]
  npm run admin -- lending:collect-merchant --tenant <tenantId> --min <D + 9 digits> --secret <merchant secret>
  npm run admin -- lending:reference-data --tenant <tenantId> [<reference data JSON file>]
  npm run admin -- lending:seed-reference-data --tenant <tenantId> [<file, default ${SEED_FILE}>]
  npm run admin -- lending:delete-dictionary --tenant <tenantId> --name <dictionary>`;

const config = loadConfigOrExit();
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    account: { type: 'string' },
    label: { type: 'string' },
    'token-id': { type: 'string' },
    min: { type: 'string' },
    'notify-url': { type: 'string' },
    'billing-url': { type: 'string' },
    'billing-prefix': { type: 'string' },
    'return-origin': { type: 'string', multiple: true },
    email: { type: 'string' },
    id: { type: 'string' },
    reason: { type: 'string' },
    note: { type: 'string' },
    login: { type: 'string' },
    'office-id': { type: 'string' },
    'office-kind': { type: 'string' },
    password: { type: 'string' },
    kind: { type: 'string' },
    currency: { type: 'string' },
    domain: { type: 'string', multiple: true },
    'staging-domain': { type: 'string', multiple: true },
    'state-management': { type: 'boolean' },
    'multiple-offers': { type: 'boolean' },
    states: { type: 'string' },
    tenant: { type: 'string' },
    level: { type: 'string' },
    expires: { type: 'string' },
    'key-id': { type: 'string' },
    secret: { type: 'string' },
    default: { type: 'boolean' },
    number: { type: 'string' },
    'inbound-url': { type: 'string' },
  },
});

/** Runs the command on the configured database (PostgreSQL, or PGlite in DATA_DIR, which it locks). */
async function runLocally(database: DatabaseHandle) {
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
        console.log(ONCE_NOTES['messaging:token']);
        break;
      }
      case 'messaging:revoke': {
        if (!values['token-id']) throw new Error(`--token-id is required\n${USAGE}`);
        console.log(
          (await revokeAccessToken(database.db, values['token-id'])) ? 'revoked' : 'no such active token',
        );
        break;
      }
      case 'messaging:sender-ids': {
        console.log(JSON.stringify(await senderIdsAwaitingApproval(database.db), null, 2));
        break;
      }
      case 'messaging:approve-sender-id':
      case 'messaging:reject-sender-id': {
        if (!values.id || !values.reason?.trim()) throw new Error(`--id and --reason are required\n${USAGE}`);
        const temporal = await connectTemporal(config, createLogger(config.LOG_LEVEL));
        try {
          const decided = await decideSenderId({ db: database.db, temporal: temporal.client }, values.id, {
            decision: positionals[0] === 'messaging:approve-sender-id' ? 'approved' : 'rejected',
            reason: values.reason.trim(),
            note: values.note,
          });
          console.log(JSON.stringify(decided, null, 2));
        } finally {
          await temporal.close();
        }
        break;
      }
      case 'messaging:price-list': {
        const file = positionals[1];
        if (!file || !!values.account === !!values.default) {
          throw new Error(`--account <id> or --default, and the CSV file, are required\n${USAGE}`);
        }
        const stored = await messaging.uploadPriceList(
          { db: database.db },
          { scope: values.account ?? DEFAULT_PRICE_LIST, text: await readFile(file, 'utf8') },
        );
        console.log(JSON.stringify(stored, null, 2));
        break;
      }
      case 'messaging:number': {
        if (!values.account || !values.number)
          throw new Error(`--account and --number are required\n${USAGE}`);
        const assigned = await messaging.assignInboundNumber(
          { db: database.db, config },
          { accountId: values.account, number: values.number, inboundUrl: values['inbound-url'] },
        );
        console.log(JSON.stringify(assigned.number, null, 2));
        break;
      }
      case 'messaging:carrier':
      case 'messaging:route': {
        const file = positionals[1];
        if (!values.name || !file) throw new Error(`--name and the JSON file are required\n${USAGE}`);
        const body = JSON.parse(await readFile(file, 'utf8'));
        const stored =
          positionals[0] === 'messaging:carrier'
            ? await messaging.putCarrier({ db: database.db, config }, { name: values.name, carrier: body })
            : await messaging.putRoute({ db: database.db }, { name: values.name, route: body });
        console.log(JSON.stringify(stored, null, 2));
        break;
      }
      case 'messaging:carriers': {
        console.log(JSON.stringify((await messaging.listCarriers({ db: database.db })).items, null, 2));
        break;
      }
      case 'messaging:routes': {
        console.log(JSON.stringify((await messaging.listRoutes({ db: database.db })).items, null, 2));
        break;
      }
      case 'collect:merchant': {
        if (!values.name) throw new Error(`--name is required\n${USAGE}`);
        const created = await createMerchant(database.db, config, {
          name: values.name,
          min: values.min,
          notifyUrl: values['notify-url'],
          billingUrl: values['billing-url'],
          billingIdnPrefix: values['billing-prefix'],
          returnOrigins: values['return-origin'],
        });
        console.log(JSON.stringify(created, null, 2));
        console.log(ONCE_NOTES['collect:merchant']);
        break;
      }
      case 'collect:return-origins': {
        if (!values.min) throw new Error(`--min is required\n${USAGE}`);
        const returnOrigins = await setReturnOrigins(database.db, values.min, values['return-origin'] ?? []);
        if (!returnOrigins) throw new Error(`no merchant ${values.min}`);
        console.log(JSON.stringify({ min: values.min, returnOrigins }, null, 2));
        break;
      }
      case 'collect:notify-url': {
        if (!values.min) throw new Error(`--min is required\n${USAGE}`);
        const change = await setNotifyUrl(database.db, config, values.min, values['notify-url'] ?? null);
        if (!change) throw new Error(`no merchant ${values.min}`);
        console.log(JSON.stringify({ min: values.min, ...change }, null, 2));
        break;
      }
      case 'collect:desk-operator': {
        const officeKind = values['office-kind'] ?? 'office';
        if (!values.login || !values.name || !values['office-id']) {
          throw new Error(`--login, --name and --office-id are required\n${USAGE}`);
        }
        if (officeKind !== 'office' && officeKind !== 'atm')
          throw new Error(`--office-kind: office or atm\n${USAGE}`);
        const operator = await createDeskOperator(database.db, {
          login: values.login,
          name: values.name,
          officeId: values['office-id'],
          officeKind,
          password: values.password,
        });
        console.log(JSON.stringify(operator, null, 2));
        console.log(ONCE_NOTES['collect:desk-operator']);
        break;
      }
      case 'collect:balances': {
        const kind = ledgerAccountKinds.find((known) => known === values.kind);
        if (values.kind && !kind)
          throw new Error(`--kind: one of ${ledgerAccountKinds.join(', ')}\n${USAGE}`);
        const accounts = await collect.listLedgerAccounts(
          { db: database.db },
          { kind, currency: values.currency },
        );
        console.table(accounts);
        break;
      }
      case 'collect:statement': {
        const file = positionals[1];
        if (!file) throw new Error(`the statement file is required\n${USAGE}`);
        const xml = await readFile(file);
        // Matching and settlement run in the statement's import workflow: Temporal must be running.
        const temporal = await connectTemporal(config, createLogger(config.LOG_LEVEL));
        try {
          const statements = await collect.importStatement(
            { db: database.db, config, temporal: temporal.client },
            { xml, origin: 'admin', fileName: path.basename(file) },
          );
          console.log(JSON.stringify(statements, null, 2));
          console.log('Follow the import: GET /admin/collect/statements/<statementId> (review: .../review).');
        } finally {
          await temporal.close();
        }
        break;
      }
      case 'openbanking:agent': {
        if (!values.name) throw new Error(`--name is required\n${USAGE}`);
        const agent = await enrolAgent(database.db, { name: values.name, email: values.email });
        console.log(JSON.stringify(agent, null, 2));
        console.log(ONCE_NOTES['openbanking:agent']);
        break;
      }
      case 'openbanking:admin-hash': {
        console.log(JSON.stringify(await issueAdminHash(database.db, values.label ?? 'admin'), null, 2));
        console.log(ONCE_NOTES['openbanking:admin-hash']);
        break;
      }
      case 'openbanking:rotate-keys': {
        console.log(JSON.stringify(await rotateSigningKey(database.db, config), null, 2));
        break;
      }
      case 'lending:tenant': {
        if (!values.name) throw new Error(`--name is required\n${USAGE}`);
        const tenant = await createLendingTenant(database.db, {
          name: values.name,
          siteDomains: values.domain,
          stagingSiteDomains: values['staging-domain'],
          features: {
            stateManagement: values['state-management'],
            multipleOffers: values['multiple-offers'],
          },
          states: values.states?.split(',').map((state) => state.trim()),
        });
        console.log(JSON.stringify(tenant, null, 2));
        console.log(
          'Issue its keys: npm run admin -- lending:api-key --tenant <tenantId or stagingTenantId> --level ...',
        );
        break;
      }
      case 'lending:api-key': {
        const levels = (values.level ?? '').split(',').map((level) => level.trim());
        const permissions = LENDING_PERMISSIONS.filter((level) => levels.includes(level));
        if (!values.tenant || permissions.length !== levels.length) {
          throw new Error(`--tenant and --level (${LENDING_PERMISSIONS.join(', ')}) are required\n${USAGE}`);
        }
        const expiresAt = values.expires ? new Date(values.expires) : undefined;
        if (expiresAt && Number.isNaN(expiresAt.getTime()))
          throw new Error(`--expires: an ISO date\n${USAGE}`);
        const issued = await issueApiKey(database.db, {
          tenantId: values.tenant,
          permissions,
          label: values.label,
          ...(expiresAt ? { expiresAt } : {}),
        });
        console.log(JSON.stringify(issued, null, 2));
        console.log(ONCE_NOTES['lending:api-key']);
        break;
      }
      case 'lending:revoke-key': {
        if (!values['key-id']) throw new Error(`--key-id is required\n${USAGE}`);
        console.log((await revokeApiKey(database.db, values['key-id'])) ? 'revoked' : 'no such active key');
        break;
      }
      case 'lending:unlock-login': {
        if (!values.tenant || !values.login) throw new Error(`--tenant and --login are required\n${USAGE}`);
        const { unlocked } = await lending.unlockLogin(
          { db: database.db, config },
          { tenantId: values.tenant, login: values.login },
        );
        console.log(unlocked ? 'unlocked' : 'the login was neither blocked nor locked');
        break;
      }
      case 'lending:credit-product': {
        const file = positionals[1];
        if (!values.tenant || !file) throw new Error(`--tenant and the product file are required\n${USAGE}`);
        const parsed = creditProductSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
        if (!parsed.success) {
          const problems = parsed.error.issues.map(
            (issue) => `  ${issue.path.join('.') || '(product)'}: ${issue.message}`,
          );
          throw new Error(`the product is not valid:\n${problems.join('\n')}`);
        }
        const saved = await lending.saveCreditProduct(database, {
          tenantId: values.tenant,
          product: parsed.data,
        });
        if (!saved) throw new Error(`no lending tenant ${values.tenant}`);
        console.log(JSON.stringify(saved.product, null, 2));
        console.log(saved.created ? 'Created.' : 'Replaced.');
        break;
      }
      case 'lending:credit-products': {
        if (!values.tenant) throw new Error(`--tenant is required\n${USAGE}`);
        console.log(
          JSON.stringify(await lending.listCreditProducts(database, { tenantId: values.tenant }), null, 2),
        );
        break;
      }
      case 'lending:files-sweep': {
        const olderThanMs = parseDurationMs(positionals[1] ?? '1h');
        const removed = await lending.sweepOrphanFiles({ db: database.db, config }, { olderThanMs });
        console.log(sweptLine(removed));
        break;
      }
      case 'lending:collect-merchant': {
        if (!values.tenant || !values.min || !values.secret)
          throw new Error(`--tenant, --min and --secret are required\n${USAGE}`);
        if (!COLLECT_MIN_PATTERN.test(values.min)) throw new Error(`--min: D followed by 9 digits\n${USAGE}`);
        const saved = await saveCollectMerchant(database.db, config, values.tenant, {
          min: values.min,
          secret: values.secret,
        });
        if (!saved) throw new Error(`no lending tenant ${values.tenant}`);
        const base = (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
        console.log(JSON.stringify(saved, null, 2));
        console.log(
          `The merchant's notify URL at the gateway: ${base}/lending/collect/notifications/${values.tenant}`,
        );
        break;
      }
      case 'lending:reference-data':
      case 'lending:seed-reference-data': {
        const file =
          positionals[1] ?? (positionals[0] === 'lending:seed-reference-data' ? SEED_FILE : undefined);
        if (!values.tenant) throw new Error(`--tenant is required\n${USAGE}`);
        if (file) {
          const parsed = referenceDataSeedSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
          if (!parsed.success) {
            const problems = parsed.error.issues.map(
              (issue) => `  ${issue.path.join('.') || '(file)'}: ${issue.message}`,
            );
            throw new Error(`${file} is not valid:\n${problems.join('\n')}`);
          }
          console.log(
            JSON.stringify(
              await lending.seedReferenceData(
                { db: database.db },
                { tenantId: values.tenant, seed: parsed.data },
              ),
              null,
              2,
            ),
          );
        } else {
          console.log(
            JSON.stringify(
              await lending.referenceDataOfTenant({ db: database.db }, { tenantId: values.tenant }),
              null,
              2,
            ),
          );
        }
        break;
      }
      case 'lending:delete-dictionary': {
        if (!values.tenant || !values.name) throw new Error(`--tenant and --name are required\n${USAGE}`);
        await lending.deleteDictionary({ db: database.db }, { tenantId: values.tenant, name: values.name });
        console.log('deleted');
        break;
      }
      default:
        throw new Error(USAGE);
    }
  } finally {
    await database.close();
  }
}

/** Prints why the command failed; a refusal names its fields (dictionaries.0.values.3.parentCode …). */
function reportFailure(error: unknown) {
  console.error((error as Error).message);
  if (error instanceof AdminUsageError) console.error(USAGE);
  const fields = error instanceof Refusal || error instanceof AdminApiRefusal ? (error.fields ?? []) : [];
  for (const field of fields) console.error(`  ${field.field}: ${field.message}`);
  process.exitCode = 2;
}

// One writer per embedded database (decision 0080): without DATABASE_URL the command would open PGlite in
// DATA_DIR, so while a platform runs on this DATA_DIR it goes through that platform's admin API instead;
// otherwise it opens the database itself (PGlite locked while it runs; PostgreSQL takes many writers).
const stack = config.DATABASE_URL ? undefined : findRunningStack(config.DATA_DIR);
try {
  if (!isAdminCommand(positionals[0]))
    throw new AdminUsageError(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
  if (stack) {
    await runThroughStack(stack, config, { command: positionals[0], rest: positionals.slice(1), values });
  } else {
    await runLocally(
      await openDatabase({ url: config.DATABASE_URL, pgliteDir: path.join(config.DATA_DIR, 'pglite') }),
    );
  }
} catch (error) {
  reportFailure(error);
}
