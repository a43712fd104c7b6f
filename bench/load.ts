import autocannon from 'autocannon';

/**
 * The bench's load. HTTP load comes from autocannon in bench/run.ts's process, never in the process
 * that serves it (the stack and the baseline server are processes of their own): a load generator
 * sharing the server's event loop understates it (338 vs ~4,700 req/s for the same bare insert).
 */

/** BENCH_DURATION: `10s` (default), `3s`, `2500ms` or a number of seconds. */
export function benchSeconds(): number {
  const raw = (process.env.BENCH_DURATION ?? '10s').trim();
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(raw);
  if (!match) throw new Error(`BENCH_DURATION=${raw}: write e.g. 10s, 3s or 2500ms`);
  const value = Number(match[1]);
  return match[2] === 'ms' ? value / 1000 : match[2] === 'm' ? value * 60 : value;
}

/** Unmeasured warm-up before each measurement (JIT, pools, caches): BENCH_WARMUP seconds, default 3. */
export const warmUpSeconds = () => Number(process.env.BENCH_WARMUP ?? 3);

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

/** The scenarios of the sections that have several, by the names BENCH_SCENARIOS accepts. */
export const SCENARIOS: Record<string, readonly string[]> = {
  collect: ['registration', 'storm', 'statement', 'desk'],
  openbanking: ['consent', 'reads', 'consents', 'payments', 'bulk'],
};
const chosenScenarios = (process.env.BENCH_SCENARIOS ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
/** BENCH_SCENARIOS=statement,bulk runs only those scenarios of the chosen sections (default: all). */
export const scenarioChosen = (name: string) =>
  chosenScenarios.length === 0 || chosenScenarios.includes(name);
export const unknownScenarios = () =>
  chosenScenarios.filter((name) => !Object.values(SCENARIOS).some((names) => names.includes(name)));

export interface Measured {
  /** Successful operations per second. */
  perSecond: number;
  ok: number;
  failed: number;
  p50: number;
  p99: number;
  /** The first failure's status and body, when there was one. */
  firstFailure?: string;
}

export interface HttpLoad {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one per request. */
  body?: string | (() => string);
  /** A path (with query) per request, replacing the URL's. */
  path?: () => string;
  /** Answers counted as successes (default: any 2xx). */
  expect?: (status: number, body: string) => boolean;
  seconds?: number;
}

/** Runs autocannon for `seconds` at CONNECTIONS connections after a short unmeasured warm-up. */
export async function httpLoad(load: HttpLoad): Promise<Measured> {
  const run = async (seconds: number): Promise<Measured> => {
    let ok = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    const expect = load.expect ?? ((status: number) => status >= 200 && status < 300);
    const result = await autocannon({
      url: load.url,
      connections: CONNECTIONS,
      duration: seconds,
      timeout: 60,
      requests: [
        {
          method: load.method ?? 'GET',
          headers: { ...(load.body ? { 'content-type': 'application/json' } : {}), ...load.headers },
          setupRequest: (request) => ({
            ...request,
            ...(load.path ? { path: load.path() } : {}),
            ...(load.body ? { body: typeof load.body === 'function' ? load.body() : load.body } : {}),
          }),
          onResponse: (status, body) => {
            if (expect(status, body)) ok++;
            else {
              failed++;
              firstFailure ??= `${status} ${body.slice(0, 300)}`;
            }
          },
        },
      ],
    });
    failed += result.errors;
    return {
      perSecond: ok / result.duration,
      ok,
      failed,
      p50: result.latency.p50,
      p99: result.latency.p99,
      ...(firstFailure ? { firstFailure } : {}),
    };
  };
  await run(warmUpSeconds());
  return run(load.seconds ?? benchSeconds());
}

/**
 * A closed loop: `concurrency` callers run `operation` back to back, starting new ones for `seconds`;
 * the rate counts every operation finished, over the time until the last one finished.
 */
export async function closedLoop(
  seconds: number,
  concurrency: number,
  operation: (i: number) => Promise<void>,
): Promise<Measured> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stopAt) {
        const t0 = performance.now();
        try {
          await operation(next++);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failed++;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    ok: latencies.length,
    failed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    ...(firstFailure ? { firstFailure } : {}),
  };
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A count-based closed loop: `concurrency` callers run requests back to back until `total` are done. */
export interface LoadResult {
  total: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** Sorted latencies in milliseconds. */
  latencies: number[];
  firstFailure?: string;
}

export async function runLoad(
  total: number,
  concurrency: number,
  request: (i: number) => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        try {
          await request(i);
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors++;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    total,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    latencies,
    ...(firstFailure ? { firstFailure } : {}),
  };
}

export function formatLatencies(result: LoadResult): string {
  return `p50 ${percentile(result.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(result.latencies, 0.99).toFixed(1)} ms${
    result.errors ? `, ${result.errors} errors` : ''
  }`;
}
