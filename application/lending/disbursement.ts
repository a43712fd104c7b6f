import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { PAYOUT_CURRENCIES, type PayoutState, recipientOf } from '../../domain/lending/disbursement.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import { issueDisbursementUpdate, type LoanSnapshot } from '../../domain/lending/loan-process.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { requireCollectMerchant } from './collect-merchants.ts';
import { readCustomer } from './customers.ts';
import { type LoanCaller, loanOf, refuseOutsideStatuses } from './loan/record.ts';
import { type LoanView, viewOfLoan } from './loan/view.ts';
import { moveLoan } from './loan/workflow.ts';

/** The payout IssueDisbursement registered, as the API answers it. */
export interface PayoutView {
  invoice: string;
  idn: string | null;
  status: PayoutState;
  amount: string;
  currency: string;
  expTime: string | null;
}

/**
 * Management/Loans/{loanId}/IssueDisbursement: pays an Approved loan out as a cash payout registered at
 * the payment-collection gateway (decision 0041), with the tenant's merchant credentials; the customer
 * collects it at a cash desk with their name and national id. The loan stays Approved until the
 * gateway notifies the payout (application/lending/collect-notifications.ts).
 */
export async function issueDisbursement(
  deps: Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>,
  { caller, loanId, amount }: { caller: LoanCaller; loanId: string; amount: string },
): Promise<LoanView & { payout: PayoutView }> {
  const { db, config } = deps;
  const row = await loanOf(deps, caller, loanId);
  refuseOutsideStatuses(row, 'issueDisbursement');
  await requireCollectMerchant(db, config, caller.tenantId);
  if (!PAYOUT_CURRENCIES.includes(row.currency))
    throw Refusal.conflict(
      'payout_currency_unsupported',
      `The collection gateway pays out ${PAYOUT_CURRENCIES.join(', ')}; the loan is in ${row.currency}`,
    );
  const customer = await readCustomer(
    { db, config },
    { tenantId: caller.tenantId, customerId: row.customerId },
  );
  const recipient = customer ? recipientOf(customer.details) : undefined;
  if (!recipient?.ok) {
    const field = recipient?.field ?? 'customerId';
    const message = recipient?.message ?? 'the loan’s customer is not found';
    throw new Refusal(409, 'payout_recipient_invalid', message, [{ field, message }]);
  }
  let answered: LoanSnapshot | undefined;
  const moved = await moveLoan(deps, row, 'issueDisbursement', async (loan) => {
    try {
      answered = await loan.executeUpdate(issueDisbursementUpdate, {
        args: [{ by: caller.actor, amount, recipient: recipient.recipient }],
      });
      return answered;
    } catch (error) {
      // The refusals only this operation has; the others are moveLoan's.
      const failure = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
      if (failure instanceof ApplicationFailure && failure.type === LoanRefusal.payoutRefused)
        throw new Refusal(502, LoanRefusal.payoutRefused, failure.message);
      throw error;
    }
  });
  const payout = answered?.payout;
  if (!payout) throw new Error(`loan ${row.loanId}: IssueDisbursement answered without its payout`);
  const view = viewOfLoan(moved, 'management');
  return {
    ...view,
    payout: {
      invoice: payout.invoice,
      idn: payout.idn,
      status: payout.state,
      amount: payout.amount,
      currency: payout.currency,
      expTime: payout.expTime,
    },
  };
}
