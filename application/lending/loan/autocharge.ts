import { setAutochargeUpdate } from '../../../domain/lending/loan-process.ts';

import type { UseCaseDeps } from '../../shared/deps.ts';
import type { LoanRequest } from './record.ts';

type Deps = Pick<UseCaseDeps, 'db' | 'temporal'>;

import { moveLoanOf } from './workflow.ts';
/** Auto-charge (workflows/lending/loan/autocharge.ts): management turns it on or off. */

export const setAutocharge = (
  deps: Deps,
  { caller, loanId, ...change }: LoanRequest & { enabled: boolean; comment?: string | undefined },
) =>
  moveLoanOf(deps, caller, loanId, change.enabled ? 'enableAutocharge' : 'disableAutocharge', (loan) =>
    loan.executeUpdate(setAutochargeUpdate, { args: [{ by: caller.actor, ...change }] }),
  );
