import type { ActivityDeps } from '../shared/deps.ts';
import { createDecisionActivities, type DecisionActivityDeps } from './decision.ts';
import { createDisbursementActivities } from './disbursement.ts';
import { createLoanRecordActivities } from './loan.ts';
import { createRepaymentActivities } from './repayments.ts';
import { createServicingActivities } from './servicing.ts';

/** Every activity of the lending platform; its workflows proxy `LendingActivities`. */
export function createLendingActivities(deps: ActivityDeps & Pick<DecisionActivityDeps, 'bureau'>) {
  return {
    ...createLoanRecordActivities(deps),
    ...createDecisionActivities(deps),
    ...createDisbursementActivities(deps),
    ...createServicingActivities(deps),
    ...createRepaymentActivities(deps),
  };
}

export type LendingActivities = ReturnType<typeof createLendingActivities>;
