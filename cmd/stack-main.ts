import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rotateSandboxToken } from '../credentials/messaging/access-tokens.ts';
import { openDatabase } from '../db/client.ts';
import { loadConfigAtStartOrExit } from '../platform/config.ts';
import { prepareDataDir, writePrivateFile } from '../platform/data-dir.ts';
import { freePort, portAnswers, waitForPort } from '../platform/net.ts';
import { STACK_FILE, thisStack } from '../platform/running-stack.ts';
import { startTemporalServer, type TemporalServer } from '../platform/temporal-server.ts';
import { startTemporalUi, type TemporalUi, temporalUiAccess } from '../platform/temporal-ui.ts';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';
import { provisionSandboxLendingMessaging } from './lending-messaging-account.ts';
import { ensureSandboxAdminToken, provisionSandboxParties, SANDBOX_PARTIES_FILE } from './sandbox-parties.ts';
import { PLATFORM_COMMAND_FILES, type PlatformCommand, restartDelayMs, STACK_SERVICES } from './stack.ts';

/**
 * `npm run stack [-- --workers N] [--no-ui] [--verbose]`: the production topology on this machine without
 * Docker (decision 0060), the processes of cmd/stack.ts: a real Temporal server on PostgreSQL
 * (DATABASE_URL's server, or TEMPORAL_POSTGRES_URL's; databases `temporal` and `temporal_visibility`, or
 * TEMPORAL_DATABASE_PREFIX's) and its Web UI, both built with `go install` on first use; in sandbox mode
 * the sandbox parties; the migrations; the API; N workers (default 2). Then, in sandbox mode, the sandbox
 * parties are provisioned as `npm start` provisions them (DATA_DIR/sandbox-parties.json and
 * sandbox-token, so `npm run demo` runs against the stack). Each process logs to DATA_DIR/stack-logs;
 * the terminal keeps the banner and what happens to the processes. A worker or the API that dies is
 * reported and started again (1 s, doubling to 30 s); the Temporal server or the sandbox dying stops
 * the stack. Ctrl-C stops workers and API (draining), then the sandbox, the UI and the server.
 * DATA_DIR/stack.json names each process and its pid.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `usage: npm run stack [-- --workers N] [--no-ui] [--verbose]
  --workers N  worker processes (default 2)
  --no-ui      no Temporal Web UI
  --verbose    every process's log on the terminal too (else in DATA_DIR/stack-logs)
Needs DATABASE_URL (PostgreSQL) and Go (the Temporal server and UI are built on first use).`;
let args: { workers: string; 'no-ui': boolean; verbose: boolean; help: boolean };
try {
  args = parseArgs({
    options: {
      workers: { type: 'string', default: '2' },
      'no-ui': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const workerCount = Number(args.workers);
if (!Number.isInteger(workerCount) || workerCount < 1 || workerCount > 32) {
  console.error('--workers: a whole number from 1 to 32');
  process.exit(2);
}
const config = await loadConfigAtStartOrExit();
if (!config.DATABASE_URL) {
  console.error(
    'DATABASE_URL: required for `npm run stack` (a PostgreSQL server; a user that may create databases, for Temporal’s)',
  );
  process.exit(78);
}
const databaseUrl = config.DATABASE_URL;
process.umask(0o077);
prepareDataDir(config.DATA_DIR);
const logDir = path.join(config.DATA_DIR, 'stack-logs');
mkdirSync(logDir, { recursive: true, mode: 0o700 });
const verbose = args.verbose || ['debug', 'trace'].includes(config.LOG_LEVEL);
const say = (line: string) => process.stdout.write(`${line}\n`);
const warn = (line: string) => process.stderr.write(`${line}\n`);
const sandboxMode = config.PLATFORM_MODE === 'sandbox';

/** A platform process the stack runs (api, worker-N, sandbox, migrate), restarted per its policy. */
interface Managed {
  name: string;
  command: PlatformCommand;
  env: Record<string, string>;
  child?: ChildProcess;
  /** Settles when the current child exits. */
  exited?: Promise<void>;
  failures: number;
  startedAt: number;
  log: WriteStream;
}

const managed: Managed[] = [];
let temporal: TemporalServer | undefined;
let ui: TemporalUi | undefined;
let stopping = false;
const policy = (command: PlatformCommand) =>
  STACK_SERVICES.find((service) => service.runs.kind === 'platform' && service.runs.command === command)
    ?.onExit ?? 'stop';

function spawnManaged(process_: Managed, onLine?: (line: string) => void): void {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, PLATFORM_COMMAND_FILES[process_.command])],
    {
      cwd: root,
      env: { ...process.env, ...process_.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's Ctrl-C reaches the stack only, which stops each in order.
      detached: true,
    },
  );
  process_.child = child;
  process_.startedAt = Date.now();
  let pending = '';
  const collect = (chunk: Buffer) => {
    process_.log.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (verbose) say(`[${process_.name}] ${line}`);
      onLine?.(line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  process_.exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve();
      if (stopping || process_.command === 'migrate') return;
      onUnexpectedExit(process_, code, signal);
    });
  });
}

function onUnexpectedExit(process_: Managed, code: number | null, signal: NodeJS.Signals | null) {
  const how = signal ? `signal ${signal}` : `exit ${code}`;
  const what = `${process_.name} (pid ${process_.child?.pid}) died (${how}); its log: ${process_.log.path}`;
  const onExit = policy(process_.command);
  if (onExit !== 'restart') {
    warn(`${what}. The stack cannot run without it: stopping.`);
    void shutdown(1);
    return;
  }
  // A process that ran a minute is taken as having started well: the backoff starts again.
  process_.failures = Date.now() - process_.startedAt > 60_000 ? 1 : process_.failures + 1;
  const delay = restartDelayMs(process_.failures);
  warn(`${what}. Restarting it in ${delay / 1000} s.`);
  setTimeout(() => {
    if (stopping) return;
    spawnManaged(process_, readyLine(process_));
    process_.child?.once('spawn', () => {
      warn(`${process_.name} restarted (pid ${process_.child?.pid})`);
      writeState();
    });
  }, delay);
}

const readyLine = (process_: Managed) => (line: string) => {
  if (process_.command === 'worker' && line.includes('"worker running"')) markReady(process_);
};
const readyWaiters = new Map<Managed, () => void>();
function markReady(process_: Managed) {
  readyWaiters.get(process_)?.();
  readyWaiters.delete(process_);
}

/** Starts a process and resolves once it says it is ready (or rejects when it exits first). */
async function startManaged(
  name: string,
  command: PlatformCommand,
  env: Record<string, string>,
  ready: 'line' | { ports: number[] } | 'exit',
): Promise<Managed> {
  const process_: Managed = {
    name,
    command,
    env,
    failures: 0,
    startedAt: Date.now(),
    log: createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a', mode: 0o600 }),
  };
  managed.push(process_);
  const readyPromise =
    ready === 'line' ? new Promise<void>((resolve) => readyWaiters.set(process_, resolve)) : undefined;
  spawnManaged(process_, readyLine(process_));
  const child = process_.child!;
  const exitedEarly = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      if (ready === 'exit' && code === 0) return;
      reject(
        new Error(`${name} exited (${signal ?? code}) before it was ready; its log: ${process_.log.path}`),
      );
    }),
  );
  if (ready === 'exit') {
    await Promise.race([process_.exited, exitedEarly]);
  } else if (ready === 'line') {
    await Promise.race([readyPromise, exitedEarly, timeout(180_000, `${name} to be ready`)]);
  } else {
    await Promise.race([
      Promise.all(ready.ports.map((port) => waitForPort('127.0.0.1', port, 120_000))),
      exitedEarly,
    ]);
  }
  exitedEarly.catch(() => {});
  return process_;
}

const timeout = (ms: number, what: string) =>
  new Promise<never>((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`gave up waiting for ${what} after ${ms} ms`)), ms);
    timer.unref();
  });

function writeState(extra: Record<string, unknown> = {}) {
  writePrivateFile(
    path.join(config.DATA_DIR, STACK_FILE),
    `${JSON.stringify(
      {
        ...state,
        ...extra,
        processes: [
          ...(temporal ? [{ name: 'temporal', pid: temporal.pid }] : []),
          ...(ui ? [{ name: 'temporal-ui', pid: ui.pid }] : []),
          ...managed
            .filter((process_) => process_.command !== 'migrate')
            .map((process_) => ({ name: process_.name, pid: process_.child?.pid })),
        ],
      },
      null,
      2,
    )}\n`,
  );
}
const state: Record<string, unknown> = { ...thisStack('npm run stack') };

async function main() {
  const started = Date.now();
  say(
    `Starting the integration platform's scale-out stack (${workerCount} worker${workerCount === 1 ? '' : 's'})...`,
  );
  const [host = '127.0.0.1', temporalPort = '7233'] = config.TEMPORAL_ADDRESS.split(':');
  if (host !== '127.0.0.1' && host !== 'localhost')
    throw new Error('TEMPORAL_ADDRESS must be on this machine (127.0.0.1:<port>) for `npm run stack`');
  // Something already listening (`npm start`, another stack) would answer our readiness probes.
  const ports: [string, number][] = [
    ['PORT', config.PORT],
    ['TEMPORAL_ADDRESS', Number(temporalPort)],
    ...(args['no-ui'] ? [] : ([['TEMPORAL_UI_PORT', config.TEMPORAL_UI_PORT]] as [string, number][])),
    ...(sandboxMode
      ? ([
          ['SMPP_PORT', config.SMPP_PORT],
          ['SANDBOX_HTTP_PORT', config.SANDBOX_HTTP_PORT],
          ['SANDBOX_BANKS_PORT', config.SANDBOX_BANKS_PORT],
          ['SANDBOX_MERCHANT_PORT', config.SANDBOX_MERCHANT_PORT],
          ['SANDBOX_ACQUIRER_PORT', config.SANDBOX_ACQUIRER_PORT],
          ['SANDBOX_BUREAU_PORT', config.SANDBOX_BUREAU_PORT],
        ] as [string, number][])
      : []),
  ];
  const taken = [];
  for (const [variable, port] of ports)
    if (port !== 0 && (await portAnswers('127.0.0.1', port, 500)))
      taken.push(`${variable} (127.0.0.1:${port})`);
  if (taken.length > 0)
    throw new Error(
      `already in use: ${taken.join(', ')}; stop what listens there (\`npm start\`? a stack killed with ` +
        `SIGKILL leaves its processes: their pids are in ${path.join(config.DATA_DIR, STACK_FILE)}) or set other ports`,
    );
  const bundle = ensureWorkflowBundle(undefined, say);

  temporal = await startTemporalServer({
    databaseUrl: process.env.TEMPORAL_POSTGRES_URL ?? databaseUrl,
    databasePrefix: process.env.TEMPORAL_DATABASE_PREFIX,
    // 0: a free one.
    port: Number(temporalPort) || undefined,
    namespace: config.TEMPORAL_NAMESPACE,
    detached: true,
    log: say,
  });
  void temporal.exited.then(({ code, signal, output }) => {
    if (stopping) return;
    warn(`The Temporal server died (${signal ?? `exit ${code}`}):\n${output.slice(-2000)}\nStopping.`);
    void shutdown(1);
  });
  await startManaged('migrate', 'migrate', { DATABASE_URL: databaseUrl }, 'exit');

  // Sandbox: the operator token and lending's messaging account, generated here once for every process.
  ensureSandboxAdminToken(config);
  const database = await openDatabase({ url: databaseUrl, poolSize: 2 });
  try {
    await provisionSandboxLendingMessaging(database.db, config);
  } catch (error) {
    await database.close();
    throw error;
  }
  // Ports given as 0 are picked now, just before the processes that listen on them start.
  const pick = async (port: number) => (port === 0 ? await freePort() : port);
  config.PORT = await pick(config.PORT);
  config.TEMPORAL_UI_PORT = await pick(config.TEMPORAL_UI_PORT);
  if (sandboxMode) {
    config.SMPP_PORT = await pick(config.SMPP_PORT);
    config.SANDBOX_HTTP_PORT = await pick(config.SANDBOX_HTTP_PORT);
    config.SANDBOX_BANKS_PORT = await pick(config.SANDBOX_BANKS_PORT);
    config.SANDBOX_MERCHANT_PORT = await pick(config.SANDBOX_MERCHANT_PORT);
    config.SANDBOX_ACQUIRER_PORT = await pick(config.SANDBOX_ACQUIRER_PORT);
    config.SANDBOX_BUREAU_PORT = await pick(config.SANDBOX_BUREAU_PORT);
  }
  const apiUrl = `http://127.0.0.1:${config.PORT}`;
  const publicBaseUrl = (config.PUBLIC_BASE_URL ?? apiUrl).replace(/\/+$/, '');
  const sandboxUrl = (port: number) => `http://127.0.0.1:${port}`;
  const uiUrl = args['no-ui'] ? undefined : `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`;
  const address = temporal.address;
  const uiAccess = temporalUiAccess(process.env, publicBaseUrl);
  const uiStarted = args['no-ui']
    ? undefined
    : startTemporalUi({
        temporalAddress: address,
        port: config.TEMPORAL_UI_PORT,
        namespace: config.TEMPORAL_NAMESPACE,
        corsOrigins: [publicBaseUrl],
        // The UI decodes for a signed-in operator only (decision 0081): its sign-in's token goes to the
        // codec server, which checks it (CODEC_OIDC_*); without a sign-in, payloads show sealed.
        ...uiAccess,
        rootDir: path.join(config.DATA_DIR, 'temporal-ui'),
        log: say,
      }).then(
        (started) => {
          ui = started;
          void started.exited.then(({ code, signal }) => {
            if (!stopping) warn(`The Temporal Web UI died (${signal ?? `exit ${code}`}); the rest runs on.`);
          });
        },
        (error: unknown) =>
          warn(`The Temporal Web UI could not be started (${(error as Error).message}); the rest runs on.`),
      );
  const sandboxStarted = sandboxMode
    ? startManaged(
        'sandbox',
        'sandbox',
        {
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: publicBaseUrl,
          SMPP_PORT: String(config.SMPP_PORT),
          SANDBOX_HTTP_PORT: String(config.SANDBOX_HTTP_PORT),
          SANDBOX_BANKS_PORT: String(config.SANDBOX_BANKS_PORT),
          SANDBOX_MERCHANT_PORT: String(config.SANDBOX_MERCHANT_PORT),
          SANDBOX_ACQUIRER_PORT: String(config.SANDBOX_ACQUIRER_PORT),
          SANDBOX_BUREAU_PORT: String(config.SANDBOX_BUREAU_PORT),
          SANDBOX_BANKS_PUBLIC_URL: config.SANDBOX_BANKS_PUBLIC_URL ?? sandboxUrl(config.SANDBOX_BANKS_PORT),
          SANDBOX_ACQUIRER_PUBLIC_URL:
            config.SANDBOX_ACQUIRER_PUBLIC_URL ?? sandboxUrl(config.SANDBOX_ACQUIRER_PORT),
          SANDBOX_GATEWAY_URL: apiUrl,
        },
        {
          ports: [
            config.SMPP_PORT,
            config.SANDBOX_HTTP_PORT,
            config.SANDBOX_BANKS_PORT,
            config.SANDBOX_MERCHANT_PORT,
            config.SANDBOX_ACQUIRER_PORT,
            config.SANDBOX_BUREAU_PORT,
          ],
        },
      )
    : undefined;
  // Awaited with the API's start; a failure meanwhile is not an unhandled rejection.
  sandboxStarted?.catch(() => {});
  const env: Record<string, string> = Object.fromEntries(
    Object.entries({
      PLATFORM_MODE: config.PLATFORM_MODE,
      PUBLIC_BASE_URL: publicBaseUrl,
      DATABASE_URL: databaseUrl,
      DATA_DIR: config.DATA_DIR,
      LOG_LEVEL: config.LOG_LEVEL,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      TEMPORAL_UI_URL: config.TEMPORAL_UI_URL ?? uiUrl,
      ADMIN_TOKEN: config.ADMIN_TOKEN,
      LENDING_MESSAGING_TOKEN: config.LENDING_MESSAGING_TOKEN,
      // Lending is a client of the other services' public APIs (decisions 0040-0042): this API.
      LENDING_COLLECT_URL: process.env.LENDING_COLLECT_URL ?? `${apiUrl}/collect`,
      LENDING_MESSAGING_URL: process.env.LENDING_MESSAGING_URL ?? `${apiUrl}/messaging`,
      LENDING_OPENBANKING_URL: process.env.LENDING_OPENBANKING_URL ?? `${apiUrl}/openbanking`,
      ...(sandboxMode
        ? {
            OUTBOUND_URL_ALLOWLIST: process.env.OUTBOUND_URL_ALLOWLIST ?? '127.0.0.0/8,::1/128',
            SMPP_URL: process.env.SMPP_URL ?? `smpp://127.0.0.1:${config.SMPP_PORT}`,
            CHATAPP_URL: process.env.CHATAPP_URL ?? `${sandboxUrl(config.SANDBOX_HTTP_PORT)}/chatapp`,
            HLR_URL: process.env.HLR_URL ?? `${sandboxUrl(config.SANDBOX_HTTP_PORT)}/hlr`,
            OPENBANKING_BANK_DIRECTORY_URL:
              process.env.OPENBANKING_BANK_DIRECTORY_URL ??
              `${sandboxUrl(config.SANDBOX_BANKS_PORT)}/directory`,
            COLLECT_ACQUIRER_URL:
              process.env.COLLECT_ACQUIRER_URL ?? sandboxUrl(config.SANDBOX_ACQUIRER_PORT),
            LENDING_BUREAU_URL: process.env.LENDING_BUREAU_URL ?? sandboxUrl(config.SANDBOX_BUREAU_PORT),
          }
        : {}),
    }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

  await bundle;
  // Each process its own metrics listener (decision 0059): the API on METRICS_PORT (9464), worker i on the next.
  const metricsPort = (offset: number) =>
    config.METRICS_PORT === 'off' || config.METRICS_PORT === 0
      ? String(config.METRICS_PORT)
      : String((config.METRICS_PORT ?? 9464) + offset);
  await startManaged(
    'api',
    'api',
    { ...env, HOST: '127.0.0.1', PORT: String(config.PORT), METRICS_PORT: metricsPort(0) },
    {
      ports: [config.PORT],
    },
  );
  // A worker says "worker running" (at info) once it polls its task queues.
  const workerReady = ['trace', 'debug', 'info'].includes(config.LOG_LEVEL) ? 'line' : { ports: [] };
  await Promise.all(
    Array.from({ length: workerCount }, (_, i) =>
      startManaged(`worker-${i + 1}`, 'worker', { ...env, METRICS_PORT: metricsPort(i + 1) }, workerReady),
    ),
  );

  // Sandbox: the parties `npm run demo` uses, as `npm start` provisions them, the merchant registered
  // with the sandbox process over HTTP (PUT /merchants/<MIN>).
  const merchantUrl = sandboxUrl(config.SANDBOX_MERCHANT_PORT);
  let partiesFile: string | undefined;
  let token: string | undefined;
  try {
    if (sandboxMode) {
      token = (await rotateSandboxToken(database.db)).token;
      writePrivateFile(path.join(config.DATA_DIR, 'sandbox-token'), `${token}\n`);
      const parties = await provisionSandboxParties(database.db, config, {
        dataDir: config.DATA_DIR,
        apiUrl,
        temporalUiUrl: env.TEMPORAL_UI_URL,
        sandbox: {
          providersUrl: sandboxUrl(config.SANDBOX_HTTP_PORT),
          merchant: {
            url: merchantUrl,
            async register(input) {
              const response = await fetch(`${merchantUrl}/merchants/${encodeURIComponent(input.min)}`, {
                method: 'PUT',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ secret: input.secret }),
              });
              if (!response.ok) throw new Error(`the sandbox merchant answered ${response.status}`);
              return { notifyUrl: `${merchantUrl}/${input.min}/notify` };
            },
          },
        },
      });
      if (parties) partiesFile = path.join(config.DATA_DIR, SANDBOX_PARTIES_FILE);
    }
  } catch (error) {
    warn(`The sandbox parties could not be provisioned (${(error as Error).message}); the stack runs on.`);
  } finally {
    await database.close();
  }

  // The UI started beside the rest; its first build takes minutes, and the banner names its URL.
  await uiStarted;
  state.apiUrl = apiUrl;
  // `npm run admin` on this DATA_DIR goes through the admin API (decision 0080); sandbox: with this token.
  state.adminUrl = `${apiUrl}/admin`;
  if (sandboxMode) state.adminToken = config.ADMIN_TOKEN;
  state.temporalAddress = temporal.address;
  state.temporalUiUrl = ui?.url;
  writeState();
  say('');
  say(`Integration platform stack is running (ready in ${Math.round((Date.now() - started) / 1000)} s):`);
  say(`  API                  ${apiUrl}   (health: ${apiUrl}/health)`);
  say(`  Messaging gateway    ${apiUrl}/messaging   docs: ${apiUrl}/messaging/docs`);
  say(`  Collect gateway      ${apiUrl}/collect   docs: ${apiUrl}/collect/docs`);
  say(`  Open-banking gateway ${apiUrl}/openbanking   docs: ${apiUrl}/openbanking/docs`);
  say(`  Lending platform     ${apiUrl}/lending   docs: ${apiUrl}/lending/docs`);
  say(
    `  Temporal server      ${temporal.address}   (PostgreSQL: ${process.env.TEMPORAL_DATABASE_PREFIX ?? 'temporal'}, ${process.env.TEMPORAL_DATABASE_PREFIX ?? 'temporal'}_visibility)`,
  );
  say(
    `  Temporal Web UI      ${ui ? ui.url : args['no-ui'] ? '(--no-ui)' : '(not running: see the warning above)'}`,
  );
  if (ui) {
    say(
      `  Web UI decoding      ${uiAccess.auth && uiAccess.codecEndpoint ? `signed-in operators, through ${uiAccess.codecEndpoint}` : 'none: payloads sealed (sign-in: docs/operations.md#inspecting-workflows-in-the-web-ui)'}`,
    );
  }
  say('  Database             PostgreSQL (DATABASE_URL)');
  for (const process_ of managed.filter((entry) => entry.command !== 'migrate'))
    say(`  ${process_.name.padEnd(20)} pid ${process_.child?.pid}`);
  if (sandboxMode) {
    say(`  Sandbox SMSC (SMPP)  smpp://127.0.0.1:${config.SMPP_PORT}`);
    say(
      `  Sandbox providers    ${sandboxUrl(config.SANDBOX_HTTP_PORT)}   (chat app, HLR; handset: /handset)`,
    );
    say(`  Sandbox banks        ${sandboxUrl(config.SANDBOX_BANKS_PORT)}`);
    say(`  Sandbox merchant     ${merchantUrl}`);
    say(`  Sandbox acquirer     ${sandboxUrl(config.SANDBOX_ACQUIRER_PORT)}`);
    say(`  Sandbox bureau       ${sandboxUrl(config.SANDBOX_BUREAU_PORT)}`);
    if (token) say(`  Sandbox access token ${token}`);
    if (partiesFile) say(`  Sandbox parties      ${partiesFile}   (merchant, lender keys, operator token)`);
  }
  say(`  Logs                 ${logDir}/<process>.log${verbose ? '   (also here)' : ''}`);
  say(`  Processes            ${path.join(config.DATA_DIR, STACK_FILE)}`);
  if (partiesFile) say('Walk every service with `npm run demo` (same DATA_DIR).');
  say('A worker or the API that dies is started again. Press Ctrl-C to stop.');
}

/** Stops what runs: workers and API first (they drain), then the sandbox, the Web UI, the server. */
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  say('\nStopping...');
  const stopGroup = async (group: Managed[]) => {
    await Promise.all(
      group.map(async (process_) => {
        const child = process_.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await process_.exited;
        clearTimeout(timer);
        process_.log.end();
      }),
    );
  };
  try {
    await stopGroup(managed.filter((entry) => entry.command === 'worker' || entry.command === 'api'));
    await stopGroup(managed.filter((entry) => entry.command === 'sandbox' || entry.command === 'migrate'));
    await ui?.stop();
    await temporal?.stop();
  } catch (error) {
    warn(`error while stopping: ${(error as Error).message}`);
  }
  say('Stopped.');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// Whatever else ends this process, its children end with it.
process.on('exit', () => {
  for (const process_ of managed) process_.child?.kill('SIGKILL');
});

main().catch(async (error: unknown) => {
  warn(error instanceof Error ? error.message : String(error));
  await shutdown(1);
});
