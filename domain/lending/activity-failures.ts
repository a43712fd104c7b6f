/**
 * Failure types the lending activities throw and the loan workflow names in its retry policies
 * (`nonRetryableErrorTypes`): one spelling for both sides. Each is a refusal by the other party, so it
 * is not retried. Pure, safe in workflow code.
 */
export const LendingActivityFailure = {
  /** The collection gateway (or the missing merchant configuration) refused a cash payout. */
  payoutRefused: 'PayoutRefused',
  /** The collection gateway refused a repayment charge or deposit slip (or could not be asked). */
  repaymentRefused: 'RepaymentRefused',
  /** The credit bureau refused the check (a 4xx): the loan is referred at once. */
  bureauRefusal: 'BureauRefusal',
} as const;
