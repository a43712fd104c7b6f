import { ApplicationFailure } from '@temporalio/common';
import { takeScaSecrets } from '../../credentials/openbanking/sca-secrets.ts';
import { SCA_SECRET_GONE } from '../../domain/openbanking/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Relays a held SCA step (decision 0068): takes its secret fields out of ob_sca_secrets (the row is
 * deleted as it is read) and hands them to `relay`, the bank call. A step that is gone fails for good
 * with SCA_SECRET_GONE. Once taken, a later attempt could not relay it, so any failure of `relay` is
 * made non-retryable: it is the step's answer, and the user gives the step again.
 */
export async function relayHeldStep<T>(
  deps: Pick<ActivityDeps, 'db' | 'config'>,
  held: { secretRef: string; subject: string },
  relay: (fields: Record<string, string>) => Promise<T>,
): Promise<T> {
  const fields = await takeScaSecrets(deps.db, deps.config, held.secretRef, held.subject);
  if (!fields)
    throw ApplicationFailure.nonRetryable(
      'The step is no longer held (expired or taken by an earlier attempt): give it again',
      SCA_SECRET_GONE,
    );
  try {
    return await relay(fields);
  } catch (error) {
    throw notRetried(error);
  }
}

/** The same failure, not retried (an ApplicationFailure keeps its type, message and details). */
function notRetried(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) {
    if (error.nonRetryable) return error;
    return ApplicationFailure.create({
      message: error.message,
      type: error.type ?? undefined,
      details: error.details ? [...error.details] : undefined,
      nonRetryable: true,
      cause: error.cause,
    });
  }
  const cause = error instanceof Error ? error : new Error(String(error));
  return ApplicationFailure.create({ message: cause.message, type: cause.name, nonRetryable: true, cause });
}
