import type { IsolatedPlatform } from '../test/support/isolated-platform.ts';

/** What every benchmark section gets: one running platform and the load generator's concurrency. */
export interface BenchContext {
  platform: IsolatedPlatform;
  concurrency: number;
}
