import { condition, defineUpdate, proxyActivities, setHandler, sleep } from '@temporalio/workflow';

/**
 * The smallest workflow with the shape of a platform workflow: started with an Update (validated),
 * then a timer, then one activity. Used only by bench/dev-server-sqlite.ts, bundled on its own.
 */

/** Does nothing: the bench measures the server's persistence, not the work. */
export const probeActivities = {
  async probeNoop(): Promise<void> {},
};

export const probeAccept = defineUpdate<string, [string]>('probeAccept');

const { probeNoop } = proxyActivities<typeof probeActivities>({ startToCloseTimeout: '10 seconds' });

export async function probeWorkflow(): Promise<string> {
  let accepted: string | undefined;
  setHandler(
    probeAccept,
    (reference) => {
      accepted = reference;
      return reference;
    },
    {
      validator: (reference) => {
        if (!reference) throw new Error('reference is required');
      },
    },
  );
  await condition(() => accepted !== undefined);
  await sleep(100);
  await probeNoop();
  return accepted!;
}
