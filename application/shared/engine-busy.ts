import { Refusal } from './refusal.ts';

/**
 * The engine cannot take an Update yet (decision 0085). Temporal admits a bounded number of Updates in
 * flight per workflow (`history.maxInFlightUpdates`, 10 by default) and a bounded size of their payloads;
 * past either it answers RESOURCE_EXHAUSTED ("limit on number of concurrent in-flight updates has been
 * reached (10)", "limit on total payload size of in-flight updates …"). An admitted Update is also
 * aborted, "to be sent again", when the workflow's Update registry is cleared (its cached state dropped,
 * a workflow task failed or timed out: "workflow update was aborted", UNAVAILABLE). Both are safe to send
 * again (the same Update id). The clients do so for a while (cmd/runtime.ts, TEMPORAL_UPDATE_QUEUE_TIMEOUT);
 * when the workflow is still that busy, the caller is answered 503 `process_busy` with a `Retry-After`,
 * never 500. The facade maps it for every use case (application/shared/facade.ts).
 */

const NOT_YET = [/in-flight updates/i, /workflow update was aborted/i];

/** Whether `error` (or one of its causes) is the engine's "not yet" to an Update: send it again later. */
export function isUpdateNotTakenYet(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    const { message } = cause;
    if (NOT_YET.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** When to try again: the Updates ahead of it usually complete within a second or two. */
export const PROCESS_BUSY_RETRY_AFTER_MS = 2_000;

/** The refusal a caller gets for an error the engine raised because the process is busy, else undefined. */
export function engineBusyRefusal(error: unknown): Refusal | undefined {
  if (!isUpdateNotTakenYet(error)) return undefined;
  return Refusal.unavailable(
    'process_busy',
    'The process is handling as many requests as it takes at once; try again after Retry-After seconds',
    PROCESS_BUSY_RETRY_AFTER_MS,
  );
}
