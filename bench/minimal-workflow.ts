import { proxyActivities } from '@temporalio/workflow';

/**
 * The baselines' workflow: one no-op activity, nothing else. Started by the bare start route
 * (baseline b) and run end to end (baseline c); bundled on its own by bench/baseline-server.ts.
 */
export const minimalActivities = {
  async minimalNoop(): Promise<void> {},
};

const { minimalNoop } = proxyActivities<typeof minimalActivities>({ startToCloseTimeout: '10 seconds' });

export async function minimalWorkflow(): Promise<void> {
  await minimalNoop();
}
