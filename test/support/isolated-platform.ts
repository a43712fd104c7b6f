import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { provisionSandboxLendingMessaging } from '../../cmd/lending-messaging-account.ts';
import { deleteBankDirectorySchedule } from '../../cmd/openbanking/bank-directory.ts';
import { connectTemporal, type RunningWorker, runWorker, serveApi } from '../../cmd/runtime.ts';
import { createMerchant, type NewMerchant } from '../../credentials/collect/merchants.ts';
import { createOneTouchApp, type NewOneTouchApp } from '../../credentials/collect/one-touch-apps.ts';
import { issueAccessToken } from '../../credentials/messaging/access-tokens.ts';
import { grantSenders } from '../../credentials/messaging/senders.ts';
import { enrolAgent, issueAdminHash } from '../../credentials/openbanking/identity.ts';
import { rotateSigningKey } from '../../credentials/openbanking/jws.ts';
import { openDatabase } from '../../db/client.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { serveMetrics } from '../../platform/metrics.ts';
import { startTracing } from '../../platform/tracing.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { createTestDatabase } from './database.ts';

export interface IsolatedPlatformOptions {
  /** Environment overrides (e.g. short timeouts: { SENDER_ID_CONFIRMATION_TIMEOUT: '2s' }). */
  env?: Record<string, string>;
  receiptDelayMs?: number;
  chatAppDelayMs?: number;
  temporalAddress: string;
  workflowBundlePath: string;
  /**
   * 'none' runs the API, database and sandbox without a worker, for tests that run the worker as a
   * separate OS process (`cmd/worker-main.ts` with `env`) and kill it.
   */
  worker?: 'in-process' | 'none';
  /**
   * 'pglite': the embedded database `npm start` uses without DATABASE_URL (one connection, in a temporary
   * folder), instead of a database of its own on the suite's PostgreSQL server.
   */
  database?: 'postgres' | 'pglite';
  /** Where the platform's log lines go (with `env.LOG_LEVEL`); default standard output. */
  logDestination?: { write(line: string): void };
  /**
   * Traces into this span processor (e.g. an InMemorySpanExporter's), with the traced workflow bundle
   * (`ensureWorkflowBundle(..., { tracing: true })`) instead of `workflowBundlePath`. Once per test file:
   * the tracer provider is the process's.
   */
  tracing?: { spanProcessor: SpanProcessor; workflowBundlePath: string };
}

/**
 * The whole platform, wired exactly as `npm start` wires it but isolated (for a test file or a benchmark):
 * a fresh PostgreSQL database, sandbox parties on free ports, a worker on a task queue of its own and
 * the API on a free port. Talk to it over HTTP at `baseUrl`, as an integrator would.
 */
/** One notification signing key per test process (RSA generation takes a moment). */
let testSigningKey: string | undefined;
const collectSigningKeyPem = () =>
  (testSigningKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString());

/**
 * The `from` numbers the test account (`token`) may send from without proving them (decision 0028):
 * granted through credentials/messaging/senders.ts, the code path of the sandbox account. Other
 * accounts (`issueToken`) get none unless asked.
 */
export const TEST_SENDER_NUMBERS = ['+359888000111', '+359888000000'] as const;

/** The key the tests' sandbox acquirer requires (COLLECT_ACQUIRER_API_KEY). */
export const TEST_ACQUIRER_API_KEY = 'test-acquirer-key-0123456789';

/** The key the tests' sandbox credit bureau requires (LENDING_BUREAU_API_KEY). */
export const TEST_BUREAU_API_KEY = 'test-bureau-key-0123456789';

export async function startIsolatedPlatform(options: IsolatedPlatformOptions) {
  const pgliteDir =
    options.database === 'pglite' ? mkdtempSync(path.join(tmpdir(), 'platform-pglite-')) : undefined;
  const database = pgliteDir
    ? { url: undefined, drop: async () => rmSync(pgliteDir, { recursive: true, force: true }) }
    : await createTestDatabase();
  const sandbox = await startSandbox({
    smppPort: 0,
    httpPort: 0,
    smppSystemId: 'platform',
    // The carriers' credentials follow the platform's (production refuses the sandbox's published ones).
    smppPassword: options.env?.SMPP_PASSWORD ?? 'sandbox',
    chatAppApiKey: options.env?.CHATAPP_API_KEY ?? 'sandbox-chatapp-key',
    chatAppAppSecret: options.env?.CHATAPP_APP_SECRET ?? 'sandbox-chatapp-app-secret',
    hlrApiKey: options.env?.HLR_API_KEY ?? 'sandbox-hlr-key',
    hlrApiSecret: options.env?.HLR_API_SECRET ?? 'sandbox-hlr-secret',
    receiptDelayMs: options.receiptDelayMs ?? 100,
    chatAppDelayMs: options.chatAppDelayMs ?? 100,
    // Outcomes must not depend on the day: Bank C's Sunday window is opened by the tests that want it.
    banksWeeklyMaintenance: false,
    acquirerApiKey: TEST_ACQUIRER_API_KEY,
    bureauApiKey: TEST_BUREAU_API_KEY,
    // The bureau's `Slow` test customer answers after the tests' bureau timeout (LENDING_BUREAU_REQUEST_TIMEOUT).
    bureauSlowMs: 5_000,
  });
  const ownFileDir = options.env?.LENDING_FILE_DIR
    ? undefined
    : mkdtempSync(path.join(tmpdir(), 'platform-files-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    DATABASE_POOL_SIZE: '5',
    TEMPORAL_ADDRESS: options.temporalAddress,
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    SMPP_URL: sandbox.smpp.url,
    SMPP_SYSTEM_ID: 'platform',
    SMPP_PASSWORD: 'sandbox',
    CHATAPP_URL: `${sandbox.http.url}/chatapp`,
    HLR_URL: `${sandbox.http.url}/hlr`,
    // Every carrier named explicitly, as PLATFORM_MODE=production requires (the sandbox's own keys).
    CHATAPP_API_KEY: 'sandbox-chatapp-key',
    CHATAPP_PHONE_NUMBER_ID: '100000000000001',
    CHATAPP_APP_SECRET: 'sandbox-chatapp-app-secret',
    CHATAPP_VERIFY_TOKEN: 'sandbox-chatapp-verify-token',
    HLR_API_KEY: 'sandbox-hlr-key',
    HLR_API_SECRET: 'sandbox-hlr-secret',
    OPENBANKING_BANK_DIRECTORY_URL: sandbox.banks.directoryUrl,
    OPENBANKING_BANK_REQUEST_TIMEOUT: '5s',
    SMS_RECEIPT_TIMEOUT: '20s',
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
    WEBHOOK_REQUEST_TIMEOUT: '2s',
    COLLECT_SIGNING_KEY: collectSigningKeyPem(),
    COLLECT_NOTIFY_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
    COLLECT_NOTIFY_REQUEST_TIMEOUT: '2s',
    COLLECT_NOTIFY_BATCH_WINDOW: '100ms',
    COLLECT_BILLING_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
    COLLECT_BILLING_REQUEST_TIMEOUT: '2s',
    COLLECT_BILLING_CHECK_TIMEOUT: '5s',
    // The sandbox acquirer named explicitly, as PLATFORM_MODE=production requires.
    COLLECT_ACQUIRER_ID: 'sandbox-acquirer',
    COLLECT_ACQUIRER_URL: sandbox.acquirer.url,
    COLLECT_ACQUIRER_API_KEY: TEST_ACQUIRER_API_KEY,
    COLLECT_ACQUIRER_REQUEST_TIMEOUT: '5s',
    // The collection account deposit slips name, explicitly, as PLATFORM_MODE=production requires.
    COLLECT_COLLECTION_IBAN: 'BG80BNBG96611020345678',
    COLLECT_COLLECTION_BENEFICIARY: 'Integration Platform Collections',
    // The sandbox credit bureau named explicitly, as PLATFORM_MODE=production requires.
    LENDING_BUREAU_URL: sandbox.bureau.url,
    LENDING_BUREAU_API_KEY: TEST_BUREAU_API_KEY,
    LENDING_BUREAU_REQUEST_TIMEOUT: '1s',
    LENDING_BUREAU_ATTEMPTS: '2',
    // Lending pays out through this platform's own collection gateway (LENDING_COLLECT_URL), whose address
    // is known once the API listens (set below); named now, as PLATFORM_MODE=production requires.
    LENDING_COLLECT_URL: 'http://127.0.0.1:9/collect',
    // Lending sends its signing codes through this platform's messaging gateway (decision 0040) with a
    // token of its own (registered below in sandbox mode); the URL is set once the API listens.
    LENDING_MESSAGING_URL: 'http://127.0.0.1:9/messaging',
    LENDING_MESSAGING_TOKEN: `at_${randomBytes(32).toString('base64url')}`,
    // The sandbox parties and the tests' webhook receivers listen on loopback: allowed explicitly (the
    // sandbox-mode default) so that a platform started with PLATFORM_MODE=production reaches them too.
    OUTBOUND_URL_ALLOWLIST: '127.0.0.0/8,::1/128',
    // No metrics listener unless a test asks for one (`METRICS_PORT: '0'`: a free port, `metricsUrl`).
    METRICS_PORT: 'off',
    // Uploaded lending files in a folder of this platform's own (removed by stop).
    ...(ownFileDir ? { LENDING_FILE_DIR: ownFileDir } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const logger = createLogger(config.LOG_LEVEL, { test: true }, options.logDestination);
  const { db, close: closeDb } = await openDatabase({
    url: config.DATABASE_URL,
    ...(pgliteDir ? { pgliteDir } : {}),
    poolSize: config.DATABASE_POOL_SIZE,
  });
  const tracing = options.tracing
    ? startTracing(config, 'test', { spanProcessor: options.tracing.spanProcessor })
    : undefined;
  // As `npm start`: the in-process worker shares the client's native connection (eager starts).
  const temporal = await connectTemporal(config, logger, { eagerStart: true, tracing });
  const workflowBundlePath = options.tracing?.workflowBundlePath ?? options.workflowBundlePath;
  const startWorker = () =>
    runWorker({
      config,
      db,
      client: temporal.client,
      logger,
      workflowBundlePath,
      connection: temporal.connection,
      tracing,
    });
  let worker: RunningWorker | undefined = options.worker === 'none' ? undefined : await startWorker();
  const api = await serveApi({ config, db, client: temporal.client, logger });
  const metrics = await serveMetrics(config, logger);
  if (!options.env?.LENDING_COLLECT_URL) {
    // The in-process worker reads it from `config` when it calls; worker processes get it from `env`.
    env.LENDING_COLLECT_URL = `${api.url}/collect`;
    config.LENDING_COLLECT_URL = env.LENDING_COLLECT_URL;
  }
  if (!options.env?.LENDING_MESSAGING_URL) {
    env.LENDING_MESSAGING_URL = `${api.url}/messaging`;
    config.LENDING_MESSAGING_URL = env.LENDING_MESSAGING_URL;
  }
  await provisionSandboxLendingMessaging(db, config);
  sandbox.merchant.trustGateway(`${api.url}/collect/.well-known/notification-key.pem`);
  // As `npm start`: the sandbox chat-app provider's status events go to this API (decision 0062).
  await sandbox.http.subscribeChatAppWebhook({
    callbackUrl: `${api.url}/messaging/chatapp/webhook`,
    verifyToken: config.CHATAPP_VERIFY_TOKEN,
  });
  const account = await issueAccessToken(db, { accountName: 'Test account', label: 'test' });
  await grantSenders(db, account.accountId, { numbers: TEST_SENDER_NUMBERS, reason: 'test account' });

  return {
    baseUrl: `${api.url}/messaging`,
    apiUrl: api.url,
    /** This process's `GET /metrics` when the test set METRICS_PORT (platform/metrics.ts). */
    metricsUrl: metrics?.url,
    db,
    client: temporal.client,
    config,
    /** The environment `config` was read from: what a worker process of this platform is started with. */
    env,
    sandbox,
    token: account.token,
    accountId: account.accountId,
    /** Another customer, for ownership tests. */
    issueToken: (accountName = 'Other account') => issueAccessToken(db, { accountName, label: 'test' }),
    /** Verified numbers and approved sender IDs for an account, without the proof (decision 0028). */
    grantSenders: (accountId: string, grant: { numbers?: string[]; senderIds?: string[] }) =>
      grantSenders(db, accountId, { ...grant, reason: 'test grant' }),
    /**
     * The open-banking gateway: `url` is its base (`${apiUrl}/openbanking`); createAgent enrols an agent as
     * the operator would (agentHash + publicHash), createAdminHash issues an x-admin-hash.
     */
    openBanking: {
      url: `${api.url}/openbanking`,
      createAgent: (name = 'Test agent') => enrolAgent(db, { name }),
      createAdminHash: () => issueAdminHash(db, 'test'),
      rotateSigningKey: () => rotateSigningKey(db, config),
    },
    /** Base URL of the payment-collection gateway. */
    collectUrl: `${api.url}/collect`,
    /** A payment-collection merchant; resolves with its MIN and (plain) secret. */
    createMerchant: (merchant: Partial<NewMerchant> = {}) =>
      createMerchant(db, config, { name: 'Test merchant', ...merchant }),
    /** A one-touch application; resolves with its APPID and (plain) SECRET. */
    createOneTouchApp: (app: Partial<NewOneTouchApp> = {}) =>
      createOneTouchApp(db, config, { name: 'Test one-touch app', ...app }),
    /**
     * A merchant hosted by the sandbox merchant (notifications and, with a billing prefix, billing):
     * created in the gateway with the sandbox's URLs and registered there with its secret.
     */
    async createSandboxMerchant(merchant: Partial<NewMerchant> = {}) {
      const min = merchant.min ?? `D${randomInt(100_000_000, 1_000_000_000)}`;
      const urls = sandbox.merchant.register({ min, secret: 'pending' });
      const created = await createMerchant(db, config, {
        name: 'Sandbox merchant',
        notifyUrl: urls.notifyUrl,
        ...(merchant.billingIdnPrefix ? { billingUrl: urls.billingUrl } : {}),
        ...merchant,
        min,
      });
      sandbox.merchant.register({ min, secret: created.secret, billingIdnPrefix: merchant.billingIdnPrefix });
      return created;
    },
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    async startWorker() {
      worker ??= await startWorker();
    },
    async stop() {
      await api.stop();
      await metrics?.stop();
      await worker?.stop();
      await sandbox.stop();
      await deleteBankDirectorySchedule(temporal.client, config.TEMPORAL_TASK_QUEUE);
      await temporal.close();
      await tracing?.shutdown();
      await closeDb();
      await database.drop();
      if (ownFileDir) rmSync(ownFileDir, { recursive: true, force: true });
    },
  };
}

export type IsolatedPlatform = Awaited<ReturnType<typeof startIsolatedPlatform>>;
