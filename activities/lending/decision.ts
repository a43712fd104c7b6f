import { ApplicationFailure, Context } from '@temporalio/activity';
import { BureauRefusal, bureauFor, type CreditBureau } from '../../connectors/lending/bureau.ts';
import { LendingActivityFailure } from '../../domain/lending/activity-failures.ts';
import type { AppliedTerms, BureauApplicant, LoanDecision } from '../../domain/lending/loan-process.ts';
import type { ActivityDeps } from '../shared/deps.ts';

export interface DecisionActivityDeps extends ActivityDeps {
  /** The credit bureau; default the configured one (bureauFor). */
  bureau?: CreditBureau;
}

export interface DecisionRequest {
  tenantId: string;
  loanId: string;
  applicant: BureauApplicant;
  terms: AppliedTerms;
}

/**
 * The automatic decision: a credit check at the bureau. The check's reference is the loan's and this
 * activity's (stable over its retries, new for a later Process), so the bureau answers a retry with its
 * first answer. A refusal (4xx) fails at once (`BureauRefusal`, not retried); an unreachable or slow
 * bureau is retried by the workflow's policy, after which the workflow refers the loan to a person.
 */
export function createDecisionActivities(deps: DecisionActivityDeps) {
  const bureau = deps.bureau ?? bureauFor(deps.config);
  return {
    async decideLoan(request: DecisionRequest): Promise<LoanDecision> {
      const { activityId, workflowExecution } = Context.current().info;
      try {
        const check = await bureau.check({
          reference: `${request.tenantId}-${request.loanId}-${workflowExecution?.runId ?? ''}-${activityId}`,
          applicant: request.applicant,
          amount: request.terms.amount,
          term: request.terms.term,
          productName: request.terms.productName,
        });
        return {
          outcome: check.decision,
          reference: check.id,
          score: check.score,
          reasons: check.reasons,
          at: new Date().toISOString(),
        };
      } catch (error) {
        if (error instanceof BureauRefusal)
          throw ApplicationFailure.nonRetryable(
            `the credit bureau refused: ${error.message}`,
            LendingActivityFailure.bureauRefusal,
          );
        throw error;
      }
    },
  };
}
