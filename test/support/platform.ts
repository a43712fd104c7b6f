import { inject } from 'vitest';
import { type IsolatedPlatformOptions, startIsolatedPlatform } from './isolated-platform.ts';

export type TestPlatformOptions = Omit<IsolatedPlatformOptions, 'temporalAddress' | 'workflowBundlePath'>;

/** An isolated platform for one test file, on the run's Temporal dev server and workflow bundle. */
export function startTestPlatform(options: TestPlatformOptions = {}) {
  return startIsolatedPlatform({
    ...options,
    temporalAddress: inject('temporalAddress'),
    workflowBundlePath: inject('workflowBundlePath'),
  });
}

export type TestPlatform = Awaited<ReturnType<typeof startTestPlatform>>;

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `GET /health` of a platform: its status, its body and how long it took to answer. */
export async function readHealth(apiUrl: string) {
  const started = Date.now();
  const response = await fetch(`${apiUrl}/health`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; notReady?: string[] },
    ms: Date.now() - started,
  };
}
