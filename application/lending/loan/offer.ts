import { acceptOfferUpdate, declineOfferUpdate } from '../../../domain/lending/loan-process.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { sendCodesOfAcceptedOffer } from './documents.ts';
import type { LoanRequest } from './record.ts';
import { audienceOf, loanOf } from './record.ts';
import { type LoanView, viewOfLoan } from './view.ts';
import { moveLoan, moveLoanOf } from './workflow.ts';

type Deps = Pick<UseCaseDeps, 'db' | 'temporal'>;
/**
 * The offer (workflows/lending/loan/offer.ts): the customer accepts one (and gets the first signing code
 * of each document) or declines.
 */

/**
 * AcceptLoanOffer, then the first signing code of each document by SMS (issue 21), so the site goes
 * straight to the signing step; answered once the gateway took the codes. A code not sent does not undo
 * the acceptance: the customer asks for it with ResendSmsCode.
 */
export async function acceptLoanOffer(
  deps: UseCaseDeps,
  { caller, loanId, offerId, apiBaseUrl }: LoanRequest & { offerId?: string | undefined; apiBaseUrl: string },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  const moved = await moveLoan(deps, row, 'acceptOffer', (loan) =>
    loan.executeUpdate(acceptOfferUpdate, { args: [{ by: caller.actor, offerId }] }),
  );
  const view = viewOfLoan(moved, audienceOf(caller));
  // The codes change nothing the view shows; the acceptance's moment is in the history just read.
  await sendCodesOfAcceptedOffer(deps, moved.row, apiBaseUrl, view.statusHistory);
  return view;
}

export const declineLoanOffer = (deps: Deps, { caller, loanId }: LoanRequest) =>
  moveLoanOf(deps, caller, loanId, 'declineOffer', (loan) =>
    loan.executeUpdate(declineOfferUpdate, { args: [{ by: caller.actor }] }),
  );
