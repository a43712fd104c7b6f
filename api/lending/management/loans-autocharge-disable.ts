import { autochargeSwitchOperation } from '../autocharge-switch.ts';

/** `POST /Management/Loans/{loanId}/AutochargeDisable?comment=`: disables auto-charges. */
export const autochargeDisableOperation = autochargeSwitchOperation('Disable');
