import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';

/**
 * Why something the API waits for could not be created at the bank (a consent, a bulk), as the refusal
 * the API answers: `refused` when the bank answered and said no (format, unknown IBAN...), since
 * retrying the same request cannot help; `unavailable` when it did not answer or answered nonsense.
 */
export function bankStartRefusal(
  error: unknown,
  what: string,
  types: { refused: string; unavailable: string },
): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const message = cause instanceof Error ? cause.message : `${what} could not be created`;
  const refused =
    cause instanceof ApplicationFailure &&
    cause.type !== Xs2aErrorType.BankUnavailable &&
    cause.type !== Xs2aErrorType.ProtocolError &&
    (Object.values(Xs2aErrorType) as (string | undefined)[]).includes(cause.type ?? undefined);
  return ApplicationFailure.nonRetryable(message, refused ? types.refused : types.unavailable);
}

/** The connector failure type (domain/openbanking/xs2a.ts) behind an activity's failure, if any. */
export function xs2aFailureTypeOf(error: unknown): Xs2aErrorType | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure &&
    (Object.values(Xs2aErrorType) as (string | undefined)[]).includes(cause.type ?? undefined)
    ? (cause.type as Xs2aErrorType)
    : undefined;
}

/** The type of the application failure behind an activity's failure, if any. */
export function failureTypeOf(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/** The message of the failure behind an activity's failure. */
export const causeMessageOf = (error: unknown): string => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof Error ? cause.message : 'the bank could not be reached';
};
