import path from 'node:path';
import { z } from 'zod';
import { parseTrustedProxies } from '../domain/client-address.ts';
import { parseOutboundAllowList } from '../domain/outbound-url.ts';
import { parseRateLimit } from '../domain/rate-limit.ts';
import {
  collectConfig,
  collectPartyUrls,
  collectProductionKeys,
  collectSandboxValues,
} from './collect/config.ts';
import { duration, optionalUrl, parsedText, port } from './config-fields.ts';
import {
  lendingBureauConfig,
  lendingBureauPartyUrls,
  lendingBureauProductionKeys,
  lendingBureauSandboxValues,
} from './lending/bureau-config.ts';
import {
  lendingCollectConfig,
  lendingCollectPartyUrls,
  lendingCollectProductionKeys,
} from './lending/collect-config.ts';
import { lendingConfig, lendingProductionKeys } from './lending/config.ts';
import { lendingFilesConfig } from './lending/files-config.ts';
import {
  lendingMessagingConfig,
  lendingMessagingPartyUrls,
  lendingMessagingProductionKeys,
} from './lending/messaging-config.ts';
import {
  lendingOpenBankingConfig,
  lendingOpenBankingPartyUrls,
  lendingOpenBankingProductionKeys,
} from './lending/openbanking-config.ts';
import { lendingServicingConfig } from './lending/servicing-config.ts';
import {
  messagingConfig,
  messagingPartyUrls,
  messagingProductionVariables,
  messagingSandboxValues,
  sandboxProviderUrls,
} from './messaging/config.ts';
import { openBankingConfig, openBankingPartyUrls, openBankingProductionKeys } from './openbanking/config.ts';
import { DEVELOPMENT_PAYLOAD_KEY, parsePayloadKeys } from './payload-codec.ts';
import { productionPartyProblems, resolvedPartyProblems } from './production-parties.ts';
import { webhookConfig, webhookProductionKeys } from './webhooks/config.ts';

/**
 * All configuration is read once from the environment, validated here, and passed down explicitly.
 * A bad value stops start-up with a message naming the variable (see ConfigError). The platform's own
 * variables are below; each service's are in its platform/<svc>/config.ts, composed here.
 */

/** A list of CIDR ranges, addresses and `host:port` (domain/outbound-url.ts); unset or empty: undefined. */
const allowList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    try {
      return parseOutboundAllowList(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const platformConfig = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `sandbox` enables demo-only endpoints and the sandbox parties; `production` disables them. */
  PLATFORM_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
  PORT: port(3000),
  HOST: z.string().default('127.0.0.1'),
  /**
   * The operator's reverse proxies (addresses and CIDR ranges, comma- or space-separated): only a
   * request from one of them has its X-Forwarded-For read for the client's address (e.g. the
   * PSU-IP-Address sent to banks). Unset: none, the socket's peer is the client.
   */
  TRUSTED_PROXIES: parsedText('', parseTrustedProxies),
  /**
   * Public base URL of the API, used in links handed to outside parties (open-banking redirect URIs,
   * AIS links). Required when NODE_ENV=production or PLATFORM_MODE=production; unset (development,
   * tests) links use the address the API listens at, never the request's Host header.
   */
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('data'),
  /** Bearer token of the operator endpoints under /admin; they are disabled (404) when unset. */
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** A PostgreSQL URL; when unset the embedded stack uses PGlite in DATA_DIR/pglite. */
  DATABASE_URL: optionalUrl,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),

  /**
   * Keys of the payload codec that seals everything the platform hands to Temporal
   * (platform/payload-codec.ts): `<id>:<64 hex characters>`, comma- or space-separated; the first
   * encrypts, all decrypt (rotation: docs/security.md). Required in production; unset elsewhere, the
   * published development key `dev-1` serves.
   */
  PAYLOAD_CODEC_KEYS: parsedText('', parsePayloadKeys),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('platform'),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_UI_URL: optionalUrl,
  TEMPORAL_CLI_PATH: z.string().optional(),
  /**
   * How long a client keeps sending an Update the server refuses for its in-flight limit (cmd/runtime.ts);
   * then the caller is answered 503 `process_busy` with a Retry-After (decision 0085).
   */
  TEMPORAL_UPDATE_QUEUE_TIMEOUT: duration('30s'),
  /**
   * The operators' sign-in the codec server accepts from the Web UI (decision 0081): an OpenID Connect
   * issuer (the identity provider the UI signs its users in with, TEMPORAL_AUTH_PROVIDER_URL), the
   * audience its tokens carry (the UI's client id) and the operators allowed to decode, by e-mail or
   * subject, comma- or space-separated. Unset: only ADMIN_TOKEN opens the codec server.
   */
  CODEC_OIDC_ISSUER: optionalUrl,
  CODEC_OIDC_AUDIENCE: z.string().min(1).optional(),
  CODEC_OPERATORS: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(/[\s,]+/).filter((entry) => entry !== '')),
  /** Embedded mode only: start a Temporal dev server (default) or use TEMPORAL_ADDRESS as it is. */
  TEMPORAL_EMBEDDED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /**
   * `sandbox/main.ts` only: the API as the sandbox parties reach it (the sandbox merchant fetches the
   * notification key there); default PUBLIC_BASE_URL (docker-compose: http://api:3000).
   */
  SANDBOX_GATEWAY_URL: optionalUrl,
  /**
   * Requests allowed per presented credential and per client address (token buckets in each API
   * process's memory), `<n>/<duration>`; `0` or `off` disables. Over it: 429 `rate_limited`.
   */
  RATE_LIMIT_PER_CREDENTIAL: parsedText('20000/1m', parseRateLimit),
  RATE_LIMIT_PER_ADDRESS: parsedText('50000/1m', parseRateLimit),
  /**
   * Internal destinations tenant-controlled URLs may reach (decision 0027): CIDR ranges, addresses,
   * `host:port`, comma- or space-separated; `none` for none. Unset: loopback in sandbox mode, nothing
   * in production (domain/outbound-url.ts).
   */
  OUTBOUND_URL_ALLOWLIST: allowList,
  /**
   * PLATFORM_MODE=production only: the loopback, private or link-local addresses the platform's own
   * outside parties (carriers, acquirer, bureau, bank directory and banks, sibling services) may be
   * at, in OUTBOUND_URL_ALLOWLIST's format; unset, production refuses every such party URL
   * (platform/production-parties.ts).
   */
  PRODUCTION_ALLOW_PRIVATE_PARTIES: allowList,
  /**
   * The Prometheus listener of this process (`GET /metrics`, decision 0059): its own port, apart from the
   * API, bound to METRICS_HOST. Unset: 9464, and a process that finds it taken runs on without it (a
   * warning says so); set: a port it cannot bind stops the process. `off` opens none.
   */
  METRICS_PORT: z
    .union([z.literal('off'), z.coerce.number().int().min(0).max(65535)])
    .optional()
    .transform((value) => (value === 'off' ? ('off' as const) : value)),
  /** Where the metrics listener binds: loopback by default (a scraper on the same host or network namespace). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * OpenTelemetry traces (decision 0059) are exported over OTLP/HTTP only when one of these is set (the
   * standard variables of the OpenTelemetry exporters: `<endpoint>/v1/traces`, or the traces URL itself);
   * unset, no span leaves the process. OTEL_EXPORTER_OTLP_HEADERS and OTEL_SERVICE_NAME are read as usual.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
});

export const configSchema = z.object({
  ...platformConfig.shape,
  ...messagingConfig.shape,
  ...collectConfig.shape,
  ...openBankingConfig.shape,
  ...webhookConfig.shape,
  ...lendingConfig.shape,
  ...lendingBureauConfig.shape,
  ...lendingCollectConfig.shape,
  ...lendingMessagingConfig.shape,
  ...lendingOpenBankingConfig.shape,
  ...lendingServicingConfig.shape,
  ...lendingFilesConfig.shape,
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      `Invalid configuration:\n${problems.map((problem) => `  ${problem.variable}: ${problem.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/**
 * What production must be given explicitly, checked at start so a production process fails at once
 * naming each, not at its first merchant, token or message: the keys sandbox mode derives or generates
 * for development, and the outside parties that otherwise default to the sandbox's.
 */
const PRODUCTION_KEYS = [
  'PAYLOAD_CODEC_KEYS',
  ...collectProductionKeys,
  ...openBankingProductionKeys,
  ...messagingProductionVariables,
  ...webhookProductionKeys,
  ...lendingBureauProductionKeys,
  ...lendingCollectProductionKeys,
  ...lendingMessagingProductionKeys,
  ...lendingOpenBankingProductionKeys,
  ...lendingProductionKeys,
] as const;

/** What production refuses even when set: sandbox parties (platform/production-parties.ts). */
const PRODUCTION_PARTY_RULES = {
  partyUrls: [
    ...collectPartyUrls,
    ...messagingPartyUrls,
    ...openBankingPartyUrls,
    ...lendingBureauPartyUrls,
    ...lendingCollectPartyUrls,
    ...lendingMessagingPartyUrls,
    ...lendingOpenBankingPartyUrls,
  ],
  sandboxValues: [...collectSandboxValues, ...messagingSandboxValues, ...lendingBureauSandboxValues],
};

/**
 * Problems of a production process: what it is not given explicitly (an empty value counts as unset),
 * and the sandbox parties it is given.
 */
function productionProblems(env: NodeJS.ProcessEnv, parsed: Partial<Config> | undefined) {
  const isSet = (variable: string) => (env[variable] ?? '').trim() !== '';
  const problems: { variable: string; message: string }[] = [];
  if (env.PLATFORM_MODE === 'production') {
    for (const key of PRODUCTION_KEYS) {
      if (!isSet(key)) problems.push({ variable: key, message: 'required when PLATFORM_MODE=production' });
    }
    problems.push(
      ...productionPartyProblems(env, PRODUCTION_PARTY_RULES, {
        allowList: parsed?.PRODUCTION_ALLOW_PRIVATE_PARTIES,
        banks: parsed?.OPENBANKING_BANKS,
      }),
    );
  }
  if (env.PLATFORM_MODE === 'production' && usesDevelopmentPayloadKey(env.PAYLOAD_CODEC_KEYS)) {
    problems.push({
      variable: 'PAYLOAD_CODEC_KEYS',
      message: 'holds the published development key; production needs keys of its own',
    });
  }
  const production = [
    env.NODE_ENV === 'production' ? 'NODE_ENV=production' : undefined,
    env.PLATFORM_MODE === 'production' ? 'PLATFORM_MODE=production' : undefined,
  ].filter((reason) => reason !== undefined);
  if (production.length > 0 && !isSet('PUBLIC_BASE_URL')) {
    problems.push({
      variable: 'PUBLIC_BASE_URL',
      message: `required when ${production.join(' or ')} (the base of links handed to banks and customers)`,
    });
  }
  return problems;
}

/** The codec server's sign-in (decision 0081) is whole or absent: an issuer with no audience or operators is refused. */
function codecSignInProblems(env: NodeJS.ProcessEnv) {
  if ((env.CODEC_OIDC_ISSUER ?? '').trim() === '') return [];
  return ['CODEC_OIDC_AUDIENCE', 'CODEC_OPERATORS']
    .filter((variable) => (env[variable] ?? '').trim() === '')
    .map((variable) => ({ variable, message: 'required with CODEC_OIDC_ISSUER' }));
}

function usesDevelopmentPayloadKey(text: string | undefined): boolean {
  try {
    return parsePayloadKeys(text ?? '').some((entry) => entry.key.equals(DEVELOPMENT_PAYLOAD_KEY.key));
  } catch {
    return false; // the schema reports the malformed value
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  const problems = [
    ...(result.error?.issues ?? []).map((issue) => ({
      variable: String(issue.path[0] ?? '?'),
      message: issue.message,
    })),
    ...productionProblems(env, result.data),
    ...codecSignInProblems(env),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return {
    ...result.data,
    ...sandboxProviderUrls(env, result.data),
    DATA_DIR: path.resolve(result.data.DATA_DIR),
  };
}

/**
 * The scale-out processes (`npm run api`, `npm run worker`) share a PostgreSQL server; PGlite is
 * single-process and serves only the embedded stack. Exits naming the variable when it is missing.
 */
export function requireDatabaseUrl(config: Config, command: string): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  console.error(
    `DATABASE_URL: required for \`${command}\` (PGlite is single-process; use \`npm start\` for it)`,
  );
  process.exit(78);
}

/** Loads configuration for an entry point; prints the problem and exits on a bad value. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/**
 * Configuration for a process that talks to the outside parties (`npm start`, `npm run api`, `worker`,
 * `stack`): loadConfigOrExit's checks, and with PLATFORM_MODE=production the party URLs' host names
 * resolved and refused when any address is inward (platform/production-parties.ts), every problem named
 * at once; a name that does not resolve yet is printed as a warning.
 */
export async function loadConfigAtStartOrExit(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const problems: { variable: string; message: string }[] = [];
  let config: Config | undefined;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (env.PLATFORM_MODE === 'production') {
    const parsed = config ?? configSchema.safeParse(env).data;
    const resolved = await resolvedPartyProblems(env, PRODUCTION_PARTY_RULES, {
      allowList: parsed?.PRODUCTION_ALLOW_PRIVATE_PARTIES,
      banks: parsed?.OPENBANKING_BANKS,
    });
    for (const warning of resolved.warnings)
      console.error(`Warning: ${warning.variable}: ${warning.message}`);
    problems.push(...resolved.problems);
  }
  if (!config || problems.length > 0) {
    console.error(new ConfigError(problems).message);
    process.exit(78); // EX_CONFIG
  }
  return config;
}
