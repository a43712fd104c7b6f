import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findGo, goInstall, isExecutable, platformCacheDir } from './go-install.ts';
import { waitForPort } from './net.ts';

/**
 * The Temporal Web UI without Docker: Temporal's own UI server (the program of the `temporalio/ui`
 * image, module github.com/temporalio/ui-server/v2, with the UI's assets embedded) built with
 * `go install` into the per-user cache beside the server's (platform/temporal-server.ts), once per
 * machine (about a minute and a half on 2 cores). `npm run stack` runs it; docker-compose.yml runs the
 * image of the same version (test/platform/stack.test.ts keeps the two in step). The UI's releases
 * are published as Go modules only now and then: this is the newest served that the server's
 * version (1.29) supports.
 */
export const TEMPORAL_UI_VERSION = 'v2.41.0';

export function temporalUiCacheDir(): string {
  return platformCacheDir(`temporal-ui-${TEMPORAL_UI_VERSION}`);
}

/** The UI server's binary, built with Go into the cache on first use. */
export async function resolveTemporalUi(log: (line: string) => void = console.error): Promise<string> {
  const dir = temporalUiCacheDir();
  const binary = path.join(dir, 'server');
  if (isExecutable(binary)) return binary;
  const what = `the Temporal Web UI ${TEMPORAL_UI_VERSION}`;
  await goInstall({
    go: findGo(what),
    dir,
    what,
    log,
    isBuilt: () => isExecutable(binary),
    packages: [`github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_VERSION}`],
  });
  return binary;
}

export interface TemporalUiOptions {
  /** The Temporal frontend, host:port. */
  temporalAddress: string;
  port: number;
  namespace?: string;
  /** Origins allowed to call the UI's API (the compose image's TEMPORAL_CORS_ORIGINS). */
  corsOrigins?: string[];
  /** The codec server the UI decodes payloads through (`<api>/codec`); unset, payloads show sealed. */
  codecEndpoint?: string | undefined;
  /** The UI passes its sign-in's token to the codec server as a bearer token (decision 0081). */
  codecPassAccessToken?: boolean | undefined;
  /** The operators' sign-in (OpenID Connect); unset, the UI signs no one in. */
  auth?: TemporalUiAuth | undefined;
  /** Where its generated configuration lives. */
  rootDir: string;
  log?: (line: string) => void;
}

/** The UI's OpenID Connect sign-in: the image's TEMPORAL_AUTH_* settings. */
export interface TemporalUiAuth {
  providerUrl: string;
  clientId: string;
  clientSecret: string;
  callbackUrl: string;
  scopes: string[];
}

/** The UI's sign-in and codec settings the image takes from its environment (docker-compose.yml). */
export const TEMPORAL_UI_ACCESS_ENV = [
  'TEMPORAL_AUTH_ENABLED',
  'TEMPORAL_AUTH_PROVIDER_URL',
  'TEMPORAL_AUTH_CLIENT_ID',
  'TEMPORAL_AUTH_CLIENT_SECRET',
  'TEMPORAL_AUTH_CALLBACK_URL',
  'TEMPORAL_AUTH_SCOPES',
  'TEMPORAL_CODEC_ENDPOINT',
  'TEMPORAL_CODEC_PASS_ACCESS_TOKEN',
] as const;

/**
 * How the UI signs operators in and decodes (decision 0081), from the image's variable names: with
 * `TEMPORAL_AUTH_ENABLED=true` it signs them in at the provider and passes the sign-in's token to the
 * codec server (`<api>/codec` unless TEMPORAL_CODEC_ENDPOINT), which checks it (CODEC_OIDC_*); without
 * a sign-in it is given no codec endpoint unless one is named, and shows payloads sealed.
 */
export function temporalUiAccess(
  env: Partial<Record<(typeof TEMPORAL_UI_ACCESS_ENV)[number], string>>,
  apiBaseUrl: string,
): Pick<TemporalUiOptions, 'auth' | 'codecEndpoint' | 'codecPassAccessToken'> {
  const value = (name: (typeof TEMPORAL_UI_ACCESS_ENV)[number]) => env[name]?.trim() || undefined;
  const required = (name: (typeof TEMPORAL_UI_ACCESS_ENV)[number]) => {
    const given = value(name);
    if (!given) throw new Error(`${name}: required with TEMPORAL_AUTH_ENABLED=true`);
    return given;
  };
  const auth: TemporalUiAuth | undefined =
    value('TEMPORAL_AUTH_ENABLED') === 'true'
      ? {
          providerUrl: required('TEMPORAL_AUTH_PROVIDER_URL'),
          clientId: required('TEMPORAL_AUTH_CLIENT_ID'),
          clientSecret: value('TEMPORAL_AUTH_CLIENT_SECRET') ?? '',
          callbackUrl: required('TEMPORAL_AUTH_CALLBACK_URL'),
          scopes: (value('TEMPORAL_AUTH_SCOPES') ?? 'openid,email,profile').split(','),
        }
      : undefined;
  const passAccessToken = value('TEMPORAL_CODEC_PASS_ACCESS_TOKEN');
  return {
    auth,
    codecEndpoint: value('TEMPORAL_CODEC_ENDPOINT') ?? (auth ? `${apiBaseUrl}/codec` : undefined),
    codecPassAccessToken: passAccessToken === undefined ? auth !== undefined : passAccessToken === 'true',
  };
}

export interface TemporalUi {
  url: string;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  stop(): Promise<void>;
}

/** The UI server's configuration file: the settings the compose image takes from its environment. */
export function temporalUiConfig(options: Omit<TemporalUiOptions, 'rootDir' | 'log'>): string {
  const list = (values: string[]) => values.map((value) => `\n    - ${JSON.stringify(value)}`).join('');
  return `temporalGrpcAddress: ${JSON.stringify(options.temporalAddress)}
host: 127.0.0.1
port: ${options.port}
enableUi: true
defaultNamespace: ${JSON.stringify(options.namespace ?? 'default')}
showTemporalSystemNamespace: false
notifyOnNewVersion: false
refreshInterval: 1m
hideLogs: true
cors:
  cookieInsecure: ${!options.auth?.callbackUrl.startsWith('https:')}
  allowOrigins:${list(options.corsOrigins ?? [])}
${authSection(options.auth)}codec:
  endpoint: ${JSON.stringify(options.codecEndpoint ?? '')}
  passAccessToken: ${options.codecPassAccessToken === true}
  includeCredentials: false
forwardHeaders:
  - X-Forwarded-For
`;
}

function authSection(auth: TemporalUiAuth | undefined): string {
  if (!auth) return 'auth:\n  enabled: false\n';
  const scopes = auth.scopes.map((scope) => `\n      - ${JSON.stringify(scope.trim())}`).join('');
  return `auth:
  enabled: true
  providers:
    - label: "sso"
      type: "oidc"
      providerUrl: ${JSON.stringify(auth.providerUrl)}
      clientId: ${JSON.stringify(auth.clientId)}
      clientSecret: ${JSON.stringify(auth.clientSecret)}
      callbackUrl: ${JSON.stringify(auth.callbackUrl)}
      scopes:${scopes}
`;
}

/** Starts the UI server (built on first use) on loopback and waits until it answers. */
export async function startTemporalUi(options: TemporalUiOptions): Promise<TemporalUi> {
  const log = options.log ?? console.error;
  const binary = await resolveTemporalUi(log);
  const configDir = path.join(options.rootDir, 'config');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(configDir, 'stack.yaml'), temporalUiConfig(options), { mode: 0o600 });
  const child: ChildProcess = spawn(
    binary,
    ['--root', options.rootDir, '--config', 'config', '--env', 'stack', 'start'],
    // Its own process group: a terminal's Ctrl-C reaches the stack, which stops it last but one.
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output })),
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const outcome = await Promise.race([
    waitForPort('127.0.0.1', options.port, 60_000).then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
  ]);
  if (outcome === 'exited') throw new Error(`the Temporal Web UI exited before it was ready:\n${output}`);
  return {
    url: `http://127.0.0.1:${options.port}`,
    pid: child.pid!,
    exited,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(options.rootDir, { recursive: true, force: true });
    },
  };
}
