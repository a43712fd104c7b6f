import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { LendingActivities } from '../../../activities/lending/index.ts';
import { LendingActivityFailure } from '../../../domain/lending/activity-failures.ts';
import type {
  BureauApplicant,
  LoanDecision,
  LoanInput,
  LoanSnapshot,
} from '../../../domain/lending/loan-process.ts';

/** The loan's activities with their retry policies. */

export const { recordLoan, loanSchedule, signaturesToAnnounce, signaturesAnnounced } =
  proxyActivities<LendingActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

/** The payout's registration: retried until the gateway answers (the INVOICE makes a retry a replay). */
export const { registerLoanPayout } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [LendingActivityFailure.payoutRefused],
  },
});

/**
 * A payment through the collection gateway (decision 0045): retried while the gateway cannot be reached
 * (for a day at most; the INVOICE makes a retry a replay there); a refusal is not retried.
 */
export const { chargeRepaymentCard, registerRepaymentSlip } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [LendingActivityFailure.repaymentRefused],
  },
});

/** The decision activity with its retry policy; after the last attempt the loan is referred. */
export async function askBureau(
  input: LoanInput,
  loan: LoanSnapshot,
  applicant: BureauApplicant,
): Promise<LoanDecision> {
  const startToCloseMs = input.bureau.requestTimeoutMs + 5_000;
  const { decideLoan } = proxyActivities<LendingActivities>({
    startToCloseTimeout: startToCloseMs,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '30 seconds',
      maximumAttempts: input.bureau.attempts,
      nonRetryableErrorTypes: [LendingActivityFailure.bureauRefusal],
    },
  });
  try {
    return await decideLoan({
      tenantId: input.tenantId,
      loanId: input.loanId,
      applicant,
      terms: {
        productName: loan.productName,
        ...(loan.promoCode ? { promoCode: loan.promoCode } : {}),
        amount: loan.amount,
        term: loan.term,
      },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return {
      outcome: 'unavailable',
      reasons: [bureauFailureReason(error, { startToCloseMs, attempts: input.bureau.attempts })],
      at: new Date().toISOString(),
    };
  }
}

/**
 * Why the bureau decided nothing, from the activity failure's cause (its own message is only "Activity
 * task failed"): the connector's words for a timeout, an error status or a refused connection
 * (connectors/lending/bureau.ts), or the activity's own timeout; with the attempts when all were used.
 */
export function bureauFailureReason(
  error: unknown,
  policy: { startToCloseMs: number; attempts: number },
): string {
  const failure = error instanceof ActivityFailure ? error : undefined;
  const cause = failure?.cause ?? (error as Error);
  let reason: string;
  if (cause instanceof TimeoutFailure)
    reason = `the credit bureau did not answer within ${policy.startToCloseMs / 1000} s (the activity timed out)`;
  else if (cause instanceof ApplicationFailure && cause.type === 'BureauUnavailable') reason = cause.message;
  else reason = `the credit bureau did not decide: ${cause?.message ?? String(error)}`;
  const allUsed = failure?.retryState === 'MAXIMUM_ATTEMPTS_REACHED' && policy.attempts > 1;
  return allUsed ? `${reason} (asked ${policy.attempts} times)` : reason;
}

/** The message of an activity's failure (an ActivityFailure wraps the activity's error: its cause says it). */
export const failureMessage = (error: unknown): string =>
  ((error as { cause?: Error }).cause ?? (error as Error)).message;
