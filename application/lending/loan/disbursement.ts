import { LoanRefusal } from '../../../domain/lending/loan-lifecycle.ts';
import { approveUpdate, registerDisbursementUpdate } from '../../../domain/lending/loan-process.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { todayUtc } from '../credit-products.ts';
import { missingDocumentGroups } from '../user-documents.ts';
import { unsignedDocumentsOf } from './documents.ts';
import type { LoanRequest } from './record.ts';
import { audienceOf, type LoanCaller, loanOf } from './record.ts';
import { type LoanView, viewOfLoan } from './view.ts';
import { moveLoan, moveLoanOf } from './workflow.ts';

/**
 * Approval and disbursement (workflows/lending/loan/disbursement.ts): management approves an accepted
 * offer once its documents are signed, and registers a payout made outside the platform.
 */

type Deps = Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>;

/**
 * A disbursement's date: refused (400 naming `field`) when after LENDING_DISBURSEMENT_HORIZON from now,
 * the latest day a payout made outside the platform may say it was made.
 */
export function refuseDisbursementBeyondHorizon(config: Deps['config'], date: string, field: string): void {
  const latest = todayUtc(new Date(Date.now() + config.LENDING_DISBURSEMENT_HORIZON));
  if (date > latest) throw Refusal.field(field, `must not be after ${latest} (LENDING_DISBURSEMENT_HORIZON)`);
}

/** Management/Loans/Disbursements: a payout made outside the platform, dated today by default. */
export async function registerDisbursement(
  deps: Deps,
  { caller, ...input }: { caller: LoanCaller; loanId: string; amount: string; date?: string | undefined },
): Promise<LoanView> {
  const date = input.date ?? todayUtc();
  refuseDisbursementBeyondHorizon(deps.config, date, 'date');
  return moveLoanOf(deps, caller, input.loanId, 'registerDisbursement', (loan) =>
    loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by: caller.actor, disbursement: { amount: input.amount, date } }],
    }),
  );
}

/**
 * Approve (management). An accepted offer is approved once every system document is signed (decision
 * 0040): `unsignedDocumentsOf` names the ones still unsigned.
 */
export async function approveLoan(
  deps: Deps,
  { caller, loanId, comments }: LoanRequest & { comments?: string | undefined },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  // The signatures are the documents' records (decision 0040).
  const { unsigned, product } = row.acceptedOfferId
    ? await unsignedDocumentsOf(deps, row)
    : { unsigned: [], product: undefined };
  if (row.status === 'Waiting for approval' && unsigned.length > 0) {
    throw Refusal.conflict(
      LoanRefusal.documentsNotSigned,
      `the customer has not signed: ${unsigned.map((document) => `${document.name} (${document.docTypeId})`).join(', ')}`,
    );
  }
  // The document groups the product requires (UserDocuments): each needs a file of the customer.
  const missing =
    row.status === 'Waiting for approval' && row.acceptedOfferId
      ? // The documents' product, when it was found by the same name (no promo code), is not read again.
        await missingDocumentGroups(deps, row, row.promoCode === null ? product : undefined)
      : [];
  if (missing.length > 0) {
    throw Refusal.conflict(
      LoanRefusal.documentsMissing,
      `the customer has no file in: ${missing.map((group) => `${group.name} (${group.groupId})`).join(', ')}`,
    );
  }
  const moved = await moveLoan(deps, row, 'approve', (loan) =>
    loan.executeUpdate(approveUpdate, {
      args: [
        {
          by: caller.actor,
          comments,
          documentsSigned: unsigned.length === 0,
          requiredDocumentsAttached: missing.length === 0,
        },
      ],
    }),
  );
  return viewOfLoan(moved, audienceOf(caller));
}
