import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { managementLoansIssueDisbursementOperation } from './management/loans-issue-disbursement.ts';

/** Disbursement through the collection gateway (decision 0041); its notification receiver is collect-notifications.ts. */
export const disbursementOperations: readonly Operation<LendingEnv>[] = [
  managementLoansIssueDisbursementOperation,
];
