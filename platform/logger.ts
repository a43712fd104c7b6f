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
