import pino from 'pino';

/** One JSON line per event. Workflow ids and request ids travel as fields, never inside messages. */
export type Logger = pino.Logger;

/** Properties of database errors that hold the values of a query (postgres.js, Drizzle). */
const VALUE_PROPERTIES = ['params', 'parameters', 'args'] as const;
/** `params: ...` of a Drizzle query error's message, to the end of its line. */
const PARAMS_LINE = /\bparams: [^\n]*/g;
/** A PostgreSQL SQLSTATE: such an error's `detail` may quote values (`Key (email)=(...) already exists`). */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The `params: a,b` text Drizzle puts in its message, for each error of the cause chain. */
function renderedParams(error: unknown): { text: string; count: number }[] {
  const found: { text: string; count: number }[] = [];
  for (
    let e = error as { params?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 10;
    depth++
  ) {
    if (Array.isArray(e.params) && e.params.length > 0) {
      found.push({ text: `params: ${e.params}`, count: e.params.length });
    }
    e = e.cause as typeof e;
  }
  return found;
}

function redactText(text: unknown, params: { text: string; count: number }[]): unknown {
  if (typeof text !== 'string') return text;
  let redacted = text;
  for (const { text: rendered, count } of params)
    redacted = redacted.replaceAll(rendered, `params: <${count} redacted>`);
  return redacted.replace(PARAMS_LINE, (line) => (line.includes('redacted>') ? line : 'params: <redacted>'));
}

/**
 * pino's error serializer, without the values of SQL queries: Drizzle's `params` (in its message and
 * as a property), postgres.js's `parameters`/`args`, and a PostgreSQL error's `detail`. The query
 * text (with `$1` placeholders) and the cause's message stay, so the log still says what failed.
 */
export function serializeError(error: unknown): unknown {
  // A message logged as text (the activity log's `error`): its `params:` line at least.
  if (typeof error === 'string') return redactText(error, []);
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (!serialized || typeof serialized !== 'object') return serialized;
  const out = serialized as Record<string, unknown>;
  const params = renderedParams(error);
  out.message = redactText(out.message, params);
  out.stack = redactText(out.stack, params);
  for (const key of VALUE_PROPERTIES) if (key in out) out[key] = '<redacted>';
  if (typeof out.detail === 'string' && typeof out.code === 'string' && SQLSTATE.test(out.code)) {
    out.detail = '<redacted>';
  }
  return out;
}

export function createLogger(
  level: string,
  bindings: Record<string, unknown> = {},
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    // `err` is ours; `error` is the Temporal SDK's key for an activity's or workflow's failure.
    serializers: { err: serializeError, error: serializeError },
  };
  return destination ? pino(options, destination) : pino(options);
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/**
 * A terminal destination that prints each JSON line as one readable line: time, level, message, and the
 * error's message and the workflow or request it concerns when the entry names them.
 */
export function readableLines(out: { write(text: string): unknown }): pino.DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const err = entry.err ?? entry.error;
      const message =
        typeof err === 'string' ? err : err && typeof err === 'object' && 'message' in err ? err.message : '';
      const reason = message ? `: ${String(message)}` : '';
      const about = ['workflowId', 'workflowType', 'activityType', 'requestId', 'path']
        .filter((key) => typeof entry[key] === 'string')
        .map((key) => `${key}=${String(entry[key])}`)
        .join(' ');
      const level = (LEVEL_NAMES[Number(entry.level)] ?? String(entry.level)).toUpperCase();
      out.write(
        `${String(entry.time ?? '')} ${level} ${String(entry.msg ?? '')}${reason}${about ? ` (${about})` : ''}\n`,
      );
    },
  };
}

/**
 * The embedded stack's logger (`npm start`, issue 25): the full JSON log at `level` goes to `file`,
 * and the terminal shows warnings and errors only, one readable line each, so the start banner stays in
 * view. `verbose` (LOG_LEVEL debug or trace, or `npm start -- --verbose`) puts the full JSON log on the
 * terminal too. Production processes keep JSON on stdout (createLogger).
 */
export function createEmbeddedLogger(
  level: string,
  bindings: Record<string, unknown>,
  options: { file: string; verbose: boolean; terminal?: { write(text: string): unknown } },
): Logger {
  if (level === 'silent') return createLogger(level, bindings);
  const file = pino.destination({ dest: options.file, append: true, mkdir: true, sync: false });
  const terminal = options.verbose
    ? { level: level as pino.Level, stream: options.terminal ?? process.stdout }
    : { level: 'warn' as const, stream: readableLines(options.terminal ?? process.stderr) };
  return createLogger(
    level,
    bindings,
    pino.multistream([{ level: level as pino.Level, stream: file }, terminal]),
  );
}
