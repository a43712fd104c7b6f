import path from 'node:path';
import { z } from 'zod';
import { collectConfig, collectProductionKeys } from './collect/config.ts';
import { optionalUrl, port } from './config-fields.ts';
import { messagingConfig, sandboxProviderUrls } from './messaging/config.ts';
import { openBankingConfig, openBankingProductionKeys } from './openbanking/config.ts';
import { webhookConfig } from './webhooks/config.ts';

/**
 * All configuration is read once from the environment, validated here, and passed down explicitly.
 * A bad value stops start-up with a message naming the variable (see ConfigError). The platform's own
 * variables are below; each service's are in its platform/<svc>/config.ts, composed here.
 */

const platformConfig = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `sandbox` enables demo-only endpoints and the sandbox parties; `production` disables them. */
  PLATFORM_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
  PORT: port(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Public base URL of the API, used in links handed to outside parties. */
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('data'),
  /** Bearer token of the operator endpoints under /admin; they are disabled (404) when unset. */
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** A PostgreSQL URL; when unset the embedded stack uses PGlite in DATA_DIR/pglite. */
  DATABASE_URL: optionalUrl,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),

  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('platform'),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_UI_URL: optionalUrl,
  TEMPORAL_CLI_PATH: z.string().optional(),
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
});

export const configSchema = z.object({
  ...platformConfig.shape,
  ...messagingConfig.shape,
  ...collectConfig.shape,
  ...openBankingConfig.shape,
  ...webhookConfig.shape,
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
 * Keys that sandbox mode derives or generates for development but production must be given, checked
 * at start so a production process fails at once, not at its first merchant or token.
 */
const PRODUCTION_KEYS = [...collectProductionKeys, ...openBankingProductionKeys] as const;

const checkedConfigSchema = configSchema.superRefine((config, context) => {
  if (config.PLATFORM_MODE !== 'production') return;
  for (const key of PRODUCTION_KEYS) {
    if (!config[key])
      context.addIssue({ code: 'custom', path: [key], message: 'required when PLATFORM_MODE=production' });
  }
});

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = checkedConfigSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
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
