/**
 * The failure type of an activity whose work can never succeed because the database refuses the data
 * (issue 20): thrown non-retryable by the worker's activity interceptor (activities/shared/
 * permanent-failures.ts), named by workflows that record the refusal and stay able to take their next
 * operation. Pure, safe in workflow code.
 */
export const DATA_REFUSED = 'DataRefused';

/** The refusal of a data-refused failure as a workflow sees it: an ActivityFailure caused by it. */
export function dataRefusalOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { type?: unknown; message?: unknown } } | null)?.cause;
  return cause?.type === DATA_REFUSED && typeof cause.message === 'string' ? cause.message : undefined;
}
