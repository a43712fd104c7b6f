import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { investorActiveInvestmentsOperation } from './investor/active-investments.ts';
import { investorActiveInvestmentsGetOperation } from './investor/active-investments-get.ts';
import { investorBidsOperation } from './investor/bids.ts';
import { investorBidsDeleteOperation } from './investor/bids-delete.ts';
import { investorBidsGetOperation } from './investor/bids-get.ts';
import { investorBidsPutOperation } from './investor/bids-put.ts';
import { investorBidsSubmitOperation } from './investor/bids-submit.ts';
import { investorOpportunitiesOperation } from './investor/opportunities.ts';
import { investorPersonalDetailsGetOperation } from './investor/personal-details-get.ts';
import { investorPersonalDetailsPutOperation } from './investor/personal-details-put.ts';
import { investorPreferencesGetOperation } from './investor/preferences-get.ts';
import { investorPreferencesPutOperation } from './investor/preferences-put.ts';
import { investorRegisterOperation } from './investor/register.ts';

/** Investors and their bids (decision 0052). */
export const investorOperations: readonly Operation<LendingEnv>[] = [
  investorRegisterOperation,
  investorPersonalDetailsGetOperation,
  investorPersonalDetailsPutOperation,
  investorPreferencesGetOperation,
  investorPreferencesPutOperation,
  investorOpportunitiesOperation,
  investorBidsOperation,
  investorBidsSubmitOperation,
  investorBidsGetOperation,
  investorBidsPutOperation,
  investorBidsDeleteOperation,
  investorActiveInvestmentsOperation,
  investorActiveInvestmentsGetOperation,
];
