import path from 'node:path';
import { z } from 'zod';
import { parseDurationList, parseDurationMs } from '../domain/durations.ts';

/**
 * All configuration is read once from the environment, validated here, and passed down explicitly.
 * A bad value stops start-up with a message naming the variable (see ConfigError).
 */

/** A text variable with a default, turned into a value by `parse`; a parse error names the variable. */
const parsedText = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

const duration = (fallback: string) => parsedText(fallback, parseDurationMs);
const durationList = (fallback: string) => parsedText(fallback, parseDurationList);

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));

export const configSchema = z.object({
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

  /** Messaging carrier (SMPP 3.4 SMSC). */
  SMPP_URL: z.string().default('smpp://127.0.0.1:2775'),
  SMPP_SYSTEM_ID: z.string().default('platform'),
  SMPP_PASSWORD: z.string().default('sandbox'),
  SMPP_PORT: port(2775),
  /** Chat-app provider and HLR lookup provider (HTTP). */
  CHATAPP_URL: z.string().url().default('http://127.0.0.1:4010/chatapp'),
  HLR_URL: z.string().url().default('http://127.0.0.1:4010/hlr'),
  CHATAPP_API_KEY: z.string().min(1).default('sandbox-chatapp-key'),
  HLR_API_KEY: z.string().min(1).default('sandbox-hlr-key'),
  SANDBOX_HTTP_PORT: port(4010),

  /** How long a message waits for its delivery receipt before it is reported as expired. */
  SMS_RECEIPT_TIMEOUT: duration('48h'),
  /** How long a sender-ID registration waits for confirmation before it expires. */
  SENDER_ID_CONFIRMATION_TIMEOUT: duration('7d'),
  /** How long an HLR lookup keeps retrying an unavailable provider before the result is `lookup_failed`. */
  HLR_LOOKUP_TIMEOUT: duration('10m'),

  /** Webhook retry delays after each failed attempt (first attempt is immediate). */
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,14h,20h,24h'),
  WEBHOOK_REQUEST_TIMEOUT: duration('15s'),
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  return { ...result.data, DATA_DIR: path.resolve(result.data.DATA_DIR) };
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
