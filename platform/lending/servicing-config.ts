import { z } from 'zod';
import { duration } from '../config-fields.ts';

/**
 * Loan servicing (decision 0043, docs/lending.md "Servicing"): LENDING_GRACE_PERIOD is how long after
 * the end of a due date (UTC) an unpaid instalment waits before the loan is Past Due (0s: the next
 * day); LENDING_REPAID_REVERSAL_WINDOW how long a Repaid loan still accepts edits and reversals of its
 * repayments before its workflow ends. LENDING_AUTOCHARGE_TIME is when on a due date (after 00:00 UTC)
 * a loan with auto-charge on charges it (decision 0045). All are fixed into each loan when it is created.
 * LENDING_DISBURSEMENT_HORIZON is how far after today (UTC) a disbursement may be dated
 * (Management/Loans/Disbursements, Management/Loans with `disbursements`): 1d lets a lender a time zone
 * ahead of UTC date it by its own today; later dates are refused (400 naming the date).
 */
export const lendingServicingConfig = z.object({
  LENDING_GRACE_PERIOD: duration('0s'),
  LENDING_REPAID_REVERSAL_WINDOW: duration('30d'),
  LENDING_AUTOCHARGE_TIME: duration('0s').refine((ms) => ms < 86_400_000, 'must be less than a day'),
  LENDING_DISBURSEMENT_HORIZON: duration('1d').refine((ms) => ms <= 366 * 86_400_000, 'must be at most 366d'),
});
