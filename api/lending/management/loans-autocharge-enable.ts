import { autochargeSwitchOperation } from '../autocharge-switch.ts';

/** `POST /Management/Loans/{loanId}/AutochargeEnable?comment=`: enables auto-charges. */
export const autochargeEnableOperation = autochargeSwitchOperation('Enable');
