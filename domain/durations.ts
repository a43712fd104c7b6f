/**
 * Human-readable durations for configuration ("500ms", "5s", "30m", "2h", "7d").
 * Pure: safe to import from workflow code.
 */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

export function parseDurationMs(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 500ms, 5s, 30m, 2h, 7d)`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as Unit]);
}

export function parseDurationList(text: string): number[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new Error('expected a comma-separated list of durations');
  return items.map(parseDurationMs);
}
