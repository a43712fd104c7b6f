import path from 'node:path';
import { rotateSandboxToken } from '../credentials/messaging/access-tokens.ts';
import { openDatabase } from '../db/client.ts';
import { loadConfigAtStartOrExit } from '../platform/config.ts';
import { prepareDataDir, writePrivateFile } from '../platform/data-dir.ts';
import { type DevServer, startDevServer } from '../platform/dev-server.ts';
import { createEmbeddedLogger, createLogger } from '../platform/logger.ts';
import { serveMetrics } from '../platform/metrics.ts';
import {
  findRunningStack,
  forgetRunningStack,
  recordRunningStack,
  thisStack,
} from '../platform/running-stack.ts';
import { resolveTemporalCli } from '../platform/temporal-cli.ts';
import { otlpTracesUrl, startTracing } from '../platform/tracing.ts';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';
import { startConfiguredSandbox } from '../sandbox/index.ts';
import { provisionSandboxLendingMessaging } from './lending-messaging-account.ts';
import { connectTemporal, runWorker, serveApi } from './runtime.ts';
import { ensureSandboxAdminToken, provisionSandboxParties } from './sandbox-parties.ts';
import { reserveWebUiCodec, type WebUiCodec } from './web-ui-codec.ts';

/**
 * `npm start`: the embedded stack in one process tree — Temporal dev server (with Web UI, data file in
 * DATA_DIR), database (PGlite in DATA_DIR unless DATABASE_URL), sandbox parties, worker and API.
 * Ctrl-C stops everything it started; data survives to the next start.
 */
const config = await loadConfigAtStartOrExit();
// Everything this process tree writes (DATA_DIR, PGlite, the key, token and log files, the Temporal dev
// server's SQLite files) is readable by its owner only.
process.umask(0o077);
prepareDataDir(config.DATA_DIR);
const logFile = path.join(config.DATA_DIR, 'platform.log');
const verbose = process.argv.includes('--verbose') || ['debug', 'trace'].includes(config.LOG_LEVEL);
// Production keeps one JSON line per event on stdout for its log collector; the sandbox keeps the
// terminal for the banner, warnings and errors, and writes the full log to a file.
const logger =
  config.PLATFORM_MODE === 'production'
    ? createLogger(config.LOG_LEVEL, { process: 'embedded' })
    : createEmbeddedLogger(config.LOG_LEVEL, { process: 'embedded' }, { file: logFile, verbose });
const say = (line: string) => process.stdout.write(`${line}\n`);
const stops: (() => Promise<void>)[] = [];

async function main() {
  // One platform per DATA_DIR (decision 0080): a second start would stop the first's dev server (its pid
  // file) and open its database a second time.
  const running = findRunningStack(config.DATA_DIR);
  if (running) {
    throw new Error(
      `${running.command} already runs on DATA_DIR ${config.DATA_DIR} (pid ${running.stackPid}): stop it first, ` +
        'or give this start another DATA_DIR (and other ports).',
    );
  }
  const stack = thisStack('npm start');
  recordRunningStack(config.DATA_DIR, stack);
  stops.push(async () => forgetRunningStack(config.DATA_DIR));
  say('Starting the integration platform (embedded mode)...');
  let devServer: DevServer | undefined;
  let webUiCodec: WebUiCodec | undefined;
  let temporalAddress = config.TEMPORAL_ADDRESS;
  // Traces only when an OTLP endpoint is configured (decision 0059); flushed last on the way out.
  const tracing = startTracing(config, 'embedded');
  if (tracing) stops.push(() => tracing.shutdown());
  const bundle = ensureWorkflowBundle(undefined, say, { tracing: tracing !== undefined });
  if (config.TEMPORAL_EMBEDDED) {
    const cliPath = await resolveTemporalCli({ explicitPath: config.TEMPORAL_CLI_PATH, log: say });
    const [host, port] = config.TEMPORAL_ADDRESS.split(':');
    if (host !== '127.0.0.1' && host !== 'localhost')
      throw new Error('TEMPORAL_ADDRESS must be local in embedded mode');
    // Sandbox: the UI decodes through a loopback codec endpoint of its own (decision 0081); production
    // mode decodes for a signed-in operator only, which the dev server's UI cannot do: sealed there.
    webUiCodec =
      config.PLATFORM_MODE === 'sandbox'
        ? await reserveWebUiCodec({ uiPort: config.TEMPORAL_UI_PORT })
        : undefined;
    devServer = await startDevServer({
      cliPath,
      dbFile: path.join(config.DATA_DIR, 'temporal.sqlite'),
      // A start that was killed (SIGKILL) leaves its dev server running: this file lets us stop it.
      pidFile: path.join(config.DATA_DIR, 'temporal.pid'),
      port: Number(port),
      uiPort: config.TEMPORAL_UI_PORT,
      uiCodecEndpoint: webUiCodec?.url,
      namespace: config.TEMPORAL_NAMESPACE,
      log: say,
    });
    temporalAddress = devServer.address;
    stops.push(() => devServer!.stop());
  }

  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: path.join(config.DATA_DIR, 'pglite'),
    poolSize: config.DATABASE_POOL_SIZE,
  });
  stops.unshift(() => database.close());

  // Production mode talks to the real providers named by SMPP_URL, CHATAPP_URL and HLR_URL.
  const sandboxMode = config.PLATFORM_MODE === 'sandbox';
  const sandbox = sandboxMode ? await startConfiguredSandbox(config) : undefined;
  if (sandbox) stops.unshift(() => sandbox.stop());

  // Sandbox: lending's own account at the messaging gateway (decision 0040), before the worker copies the
  // configuration: the signing-code activity sends with its token (decision 0047).
  await provisionSandboxLendingMessaging(database.db, config);
  // Sandbox: an operator token for the operator's steps of `npm run demo`, unless ADMIN_TOKEN is set.
  ensureSandboxAdminToken(config);
  // The worker runs in this process: starts hand their first task straight to it (eager start).
  const temporal = await connectTemporal({ ...config, TEMPORAL_ADDRESS: temporalAddress }, logger, {
    eagerStart: true,
    tracing,
  });
  stops.unshift(() => temporal.close());
  const worker = await runWorker({
    config: { ...config, TEMPORAL_ADDRESS: temporalAddress },
    db: database.db,
    client: temporal.client,
    connection: temporal.connection,
    logger,
    workflowBundlePath: await bundle,
    tracing,
  });
  stops.unshift(() => worker.stop());
  const api = await serveApi({ config, db: database.db, client: temporal.client, logger });
  // The sandbox merchant verifies notification SIGNATUREs with the key this API publishes.
  sandbox?.merchant.trustGateway(`${api.url}/collect/.well-known/notification-key.pem`);
  stops.unshift(() => api.stop());
  // `npm run admin` finds the admin API here and goes through it rather than opening the database.
  recordRunningStack(config.DATA_DIR, {
    ...stack,
    // An API bound to every address (HOST=0.0.0.0 or ::) is reached on loopback from this machine.
    adminUrl: `${api.url.replace(/^http:\/\/(0\.0\.0\.0|::):/, 'http://127.0.0.1:')}/admin`,
    adminToken: sandboxMode ? config.ADMIN_TOKEN : undefined,
  });
  if (webUiCodec) {
    const codec = await webUiCodec.serve({ db: database.db, temporal: temporal.client, config, logger });
    stops.unshift(() => codec.stop());
  }
  // One metrics listener for the API and the worker of this process (decision 0059).
  const metrics = await serveMetrics(config, logger);
  if (metrics) stops.unshift(() => metrics.stop());
  // The sandbox chat-app provider sends its status events to this API's webhook (decision 0062).
  if (sandbox) {
    const callbackUrl = `${api.url}/messaging/chatapp/webhook`;
    if (
      !(await sandbox.http.subscribeChatAppWebhook({ callbackUrl, verifyToken: config.CHATAPP_VERIFY_TOKEN }))
    )
      logger.warn({ callbackUrl }, 'the sandbox chat-app provider could not subscribe its webhook');
  }

  const token = sandboxMode ? await rotateSandboxToken(database.db) : undefined;
  // Sandbox convenience for `npm run demo` on the same machine; owner-only permissions.
  if (token) writePrivateFile(path.join(config.DATA_DIR, 'sandbox-token'), `${token.token}\n`);

  const uiUrl = config.TEMPORAL_UI_URL ?? devServer?.uiUrl;
  // Sandbox: a collect merchant and a lending tenant with its keys, in DATA_DIR/sandbox-parties.json.
  // A failure here leaves the platform running, without the demo's parties.
  const parties = sandbox
    ? await provisionSandboxParties(database.db, config, {
        dataDir: config.DATA_DIR,
        apiUrl: api.url,
        temporalUiUrl: uiUrl,
        sandbox: {
          merchant: sandbox.merchant,
          providersUrl: sandbox.http.url,
          secondSmscUrl: sandbox.smpp2.url,
        },
      }).catch((error: unknown) => {
        logger.warn({ err: error }, 'the sandbox parties could not be provisioned');
        return undefined;
      })
    : undefined;
  say('');
  say('Integration platform is running:');
  say(`  API                  ${api.url}   (health: ${api.url}/health)`);
  say(`  Messaging gateway    ${api.url}/messaging   docs: ${api.url}/messaging/docs`);
  say(`  Collect gateway      ${api.url}/collect   docs: ${api.url}/collect/docs`);
  say(`  Open-banking gateway ${api.url}/openbanking   docs: ${api.url}/openbanking/docs`);
  say(`  Lending platform     ${api.url}/lending   docs: ${api.url}/lending/docs`);
  if (metrics) say(`  Metrics              ${metrics.url}   (Prometheus: API and worker of this process)`);
  const tracesUrl = otlpTracesUrl(config);
  if (tracesUrl) say(`  Traces               OTLP/HTTP to ${tracesUrl}`);
  say(`  Temporal             ${temporalAddress}${uiUrl ? `   Web UI: ${uiUrl}` : ''}`);
  say(
    `  Database             ${database.driver === 'pglite' ? `PGlite in ${path.join(config.DATA_DIR, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`,
  );
  if (sandbox && token) {
    say(`  Sandbox SMSC (SMPP)  ${sandbox.smpp.url}`);
    say(`  Sandbox providers    ${sandbox.http.url}   (chat app, HLR)`);
    say(`  Sandbox handset      ${sandbox.http.url}/handset   (every SMS the SMSC accepted, per number)`);
    say(`  Sandbox banks        ${sandbox.banks.url}   (XS2A 1.3 + SCA page)`);
    say(`  Sandbox merchant     ${sandbox.merchant.url}   (collect notifications and billing)`);
    say(`  Sandbox acquirer     ${sandbox.acquirer.url}   (cards, 3-D Secure page)`);
    say(`  Sandbox bureau       ${sandbox.bureau.url}   (credit reports for lending)`);
    say(`  Sandbox access token ${token.token}`);
  }
  if (parties) {
    const { collect, lending } = parties;
    say(
      `  Sandbox merchant MIN ${collect.min}   (secret and all below: ${path.join(config.DATA_DIR, 'sandbox-parties.json')})`,
    );
    say(
      `  Sandbox lender       tenant ${lending.tenantId} (staging ${lending.stagingTenantId}), product "${lending.productName}"`,
    );
    say(`    lender_ApiKey      front office    ${lending.keys.frontOffice}`);
    say(`                       management      ${lending.keys.management}`);
    say(`                       payment options ${lending.keys.paymentOptions}`);
    say(
      `  Operator token       in ${path.join(config.DATA_DIR, 'sandbox-parties.json')} (adminToken; bearer of ${api.url}/admin)`,
    );
  }
  if (webUiCodec && devServer?.uiUrl) {
    say(
      `  Web UI decoding      through ${webUiCodec.url} (loopback, the UI's origin only; docs/security.md)`,
    );
  } else if (uiUrl) {
    say('  Web UI decoding      for operators only: docs/operations.md#inspecting-workflows-in-the-web-ui');
  }
  if (config.PLATFORM_MODE !== 'production')
    say(
      `  Logs                 ${logFile}   (${verbose ? 'also here, in full' : 'here: warnings and errors only; --verbose or LOG_LEVEL=debug for all'})`,
    );
  if (parties) say('Walk every service with `npm run demo` (it reads DATA_DIR).');
  say('Press Ctrl-C to stop.');
}

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  say('\nStopping...');
  for (const stop of stops) {
    try {
      await stop();
    } catch (error) {
      logger.warn({ err: error }, 'error while stopping');
    }
  }
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().catch(async (error) => {
  console.error(error instanceof Error ? error.message : error);
  await shutdown(1);
});
