import type { ActivityDeps } from '../shared/deps.ts';
import { createBankVerificationActivities } from './bank-verification.ts';
import { createCardDeletionActivities } from './card-deletion.ts';
import { createDecisionActivities, type DecisionActivityDeps } from './decision.ts';
import { createDisbursementActivities } from './disbursement.ts';
import { createLoanRecordActivities } from './loan.ts';
import { createNotificationKeyActivities } from './notification-key.ts';
import { createRepaymentActivities } from './repayments.ts';
import { createServicingActivities } from './servicing.ts';
import { createSigningCodeActivities } from './signing-codes.ts';

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

/**
 * Activities of the processes that call sibling services (decision 0047): bank verification, signing
 * codes, card deletion and the collection gateway's notification key. Registered beside the loan's; their
 * workflows proxy their own factories' types.
 */
export function createSiblingCallActivities(deps: ActivityDeps) {
  return {
    ...createBankVerificationActivities(deps),
    ...createSigningCodeActivities(deps),
    ...createCardDeletionActivities(deps),
    ...createNotificationKeyActivities(deps),
  };
}
