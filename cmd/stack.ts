import { TEMPORAL_SERVER_VERSION } from '../platform/temporal-server.ts';
import { TEMPORAL_UI_ACCESS_ENV, TEMPORAL_UI_VERSION } from '../platform/temporal-ui.ts';

/**
 * The scale-out topology, described once: what `npm run stack` (cmd/stack-main.ts) starts on this
 * machine without Docker, and what docker-compose.yml runs in containers. Each entry is a compose
 * service of the same name; test/platform/stack.test.ts parses docker-compose.yml and checks that it has
 * the same services, commands, versions, restart policies and environment names (decision 0060).
 */

/** What the platform's processes are given; the sandbox's party URLs only in sandbox mode. */
export const PLATFORM_PROCESS_ENV = [
  'PLATFORM_MODE',
  'PUBLIC_BASE_URL',
  'DATABASE_URL',
  'DATA_DIR',
  'LOG_LEVEL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'TEMPORAL_UI_URL',
  'ADMIN_TOKEN',
  'LENDING_MESSAGING_TOKEN',
  'LENDING_COLLECT_URL',
  'LENDING_MESSAGING_URL',
  'LENDING_OPENBANKING_URL',
  'OUTBOUND_URL_ALLOWLIST',
] as const;

/** The codec server's check of an operator's Web UI sign-in (the API's only). */
export const CODEC_SIGN_IN_ENV = ['CODEC_OIDC_ISSUER', 'CODEC_OIDC_AUDIENCE', 'CODEC_OPERATORS'] as const;

/** The outside parties' URLs, pointed at the sandbox process in sandbox mode. */
export const SANDBOX_PARTY_ENV = [
  'SMPP_URL',
  'CHATAPP_URL',
  'HLR_URL',
  'OPENBANKING_BANK_DIRECTORY_URL',
  'COLLECT_ACQUIRER_URL',
  'LENDING_BUREAU_URL',
] as const;

export const SANDBOX_PROCESS_ENV = [
  'HOST',
  'PUBLIC_BASE_URL',
  'SMPP_PORT',
  'SANDBOX_HTTP_PORT',
  'SANDBOX_BANKS_PORT',
  'SANDBOX_MERCHANT_PORT',
  'SANDBOX_ACQUIRER_PORT',
  'SANDBOX_BUREAU_PORT',
  'SANDBOX_BANKS_PUBLIC_URL',
  'SANDBOX_ACQUIRER_PUBLIC_URL',
  'SANDBOX_GATEWAY_URL',
] as const;

export type PlatformCommand = 'api' | 'worker' | 'migrate' | 'sandbox';

export interface StackService {
  /** The docker-compose.yml service of the same name. */
  name: 'postgres' | 'temporal' | 'temporal-ui' | 'sandbox' | 'migrate' | 'api' | 'worker';
  what: string;
  /**
   * How `npm run stack` provides it: `external` is given by the environment (DATABASE_URL), `go` is
   * built with `go install` from the module of the compose image's program at the same version,
   * `platform` is the image's command of that name (docker/entrypoint.sh, the npm script).
   */
  runs:
    | { kind: 'external'; variable: 'DATABASE_URL' }
    | { kind: 'go'; module: string; version: string; image: string }
    | { kind: 'platform'; command: PlatformCommand };
  /** `one-shot` runs to completion before the services that need it start. */
  lifetime: 'one-shot' | 'long-running';
  /** `many`: `npm run stack -- --workers N` (compose: `--scale worker=N`). */
  replicas: 'one' | 'many';
  /**
   * On an unexpected exit: `restart` (stateless: started again with a backoff; compose
   * `restart: unless-stopped`), `report` (said on the terminal, the rest runs on) or `stop` (the
   * stack stops: nothing works without it).
   */
  onExit: 'restart' | 'report' | 'stop';
  /** Environment variables the stack sets for it: its compose service sets each too. */
  env: readonly string[];
}

export const STACK_SERVICES: readonly StackService[] = [
  {
    name: 'postgres',
    what: 'PostgreSQL: the platform database and Temporal’s two (DATABASE_URL; not started by the stack)',
    runs: { kind: 'external', variable: 'DATABASE_URL' },
    lifetime: 'long-running',
    replicas: 'one',
    onExit: 'stop',
    env: [],
  },
  {
    name: 'temporal',
    what: 'the Temporal server (frontend, history, matching, worker) persisting to PostgreSQL',
    runs: {
      kind: 'go',
      module: 'go.temporal.io/server',
      version: TEMPORAL_SERVER_VERSION,
      image: 'temporalio/auto-setup',
    },
    lifetime: 'long-running',
    replicas: 'one',
    onExit: 'stop',
    env: [],
  },
  {
    name: 'temporal-ui',
    what: 'the Temporal Web UI',
    runs: {
      kind: 'go',
      module: 'github.com/temporalio/ui-server/v2',
      version: TEMPORAL_UI_VERSION,
      image: 'temporalio/ui',
    },
    lifetime: 'long-running',
    replicas: 'one',
    onExit: 'report',
    // The image's names of the settings the stack writes to the UI server's configuration file; the
    // sign-in and codec settings (decision 0081) are read from the stack's own environment.
    env: ['TEMPORAL_ADDRESS', 'TEMPORAL_CORS_ORIGINS', ...TEMPORAL_UI_ACCESS_ENV],
  },
  {
    name: 'sandbox',
    what: 'the sandbox parties: SMPP carrier, chat-app and HLR providers, banks, merchant, acquirer, bureau',
    runs: { kind: 'platform', command: 'sandbox' },
    lifetime: 'long-running',
    replicas: 'one',
    onExit: 'stop',
    env: SANDBOX_PROCESS_ENV,
  },
  {
    name: 'migrate',
    what: 'applies pending database migrations, then exits',
    runs: { kind: 'platform', command: 'migrate' },
    lifetime: 'one-shot',
    replicas: 'one',
    onExit: 'stop',
    env: ['DATABASE_URL'],
  },
  {
    name: 'api',
    what: 'the API of all four services',
    runs: { kind: 'platform', command: 'api' },
    lifetime: 'long-running',
    replicas: 'one',
    onExit: 'restart',
    // CODEC_OIDC_*: the codec server's check of the Web UI's sign-in (decision 0081), passed through.
    env: [
      ...PLATFORM_PROCESS_ENV,
      ...SANDBOX_PARTY_ENV,
      ...CODEC_SIGN_IN_ENV,
      'HOST',
      'PORT',
      'METRICS_PORT',
    ],
  },
  {
    name: 'worker',
    what: 'a worker polling both task queues (business and delivery)',
    runs: { kind: 'platform', command: 'worker' },
    lifetime: 'long-running',
    replicas: 'many',
    onExit: 'restart',
    env: [...PLATFORM_PROCESS_ENV, ...SANDBOX_PARTY_ENV, 'METRICS_PORT'],
  },
];

/** The file each platform command runs (docker/entrypoint.sh and package.json name the same). */
export const PLATFORM_COMMAND_FILES: Record<PlatformCommand, string> = {
  api: 'cmd/api-main.ts',
  worker: 'cmd/worker-main.ts',
  migrate: 'cmd/migrate-main.ts',
  sandbox: 'sandbox/main.ts',
};

/** Restart delays of a `restart` process: 1 s, doubling to 30 s; reset once it has run a minute. */
export function restartDelayMs(consecutiveFailures: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, consecutiveFailures - 1));
}
