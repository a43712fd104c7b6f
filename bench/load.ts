/** A closed-loop load generator: `concurrency` callers each run requests back to back until `total` are done. */
export interface LoadResult {
  total: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** Sorted latencies in milliseconds. */
  latencies: number[];
}

export async function runLoad(
  total: number,
  concurrency: number,
  request: (i: number) => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        try {
          await request(i);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { total, errors, seconds, perSecond: latencies.length / seconds, latencies };
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function formatLatencies(result: LoadResult): string {
  return `p50 ${percentile(result.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(result.latencies, 0.99).toFixed(1)} ms${
    result.errors ? `, ${result.errors} errors` : ''
  }`;
}
