import pino from 'pino';

/** One JSON line per event. Workflow ids and request ids travel as fields, never inside messages. */
export type Logger = pino.Logger;

export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...bindings }, timestamp: pino.stdTimeFunctions.isoTime });
}
