/**
 * The failure type of an activity whose work can never succeed because the database refuses the data
 * (issue 20): thrown non-retryable by the worker's activity interceptor (activities/shared/
 * permanent-failures.ts), named by workflows that record the refusal and stay able to take their next
 * operation. Pure, safe in workflow code.
 */
export const DATA_REFUSED = 'DataRefused';

type Failure = { type?: unknown; message?: unknown; cause?: Failure } | null | undefined;

/**
 * The reason of a data-refused failure as a workflow sees it: an ActivityFailure caused by it (an
 * activity), or the failure itself (a local activity).
 */
export function dataRefusalOf(error: unknown): string | undefined {
  for (const failure of [error as Failure, (error as Failure)?.cause])
    if (failure?.type === DATA_REFUSED && typeof failure.message === 'string') return failure.message;
  return undefined;
}
