import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { isClosed, LoanRefusal, type LoanStatus } from '../../domain/lending/loan-lifecycle.ts';
import type { LoanInput } from '../../domain/lending/loan-process.ts';
import { nextServicingMoment } from '../../domain/lending/servicing.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { decide, handleApplication } from './loan/application.ts';
import { autocharge, autochargeMoment, handleAutocharge } from './loan/autocharge.ts';
import { handleBids } from './loan/bids.ts';
import { handleDisbursement } from './loan/disbursement.ts';
import { handleOffer } from './loan/offer.ts';
import { assess, handleServicing, startServicing } from './loan/servicing.ts';
import { LoanState } from './loan/state.ts';
import { handleSubmissions } from './loan/submissions.ts';

/**
 * One loan (`lending-loan-<tenantId>-<loanId>`), from its application to its end, moved only by the
 * transition table (domain/lending/loan-lifecycle.ts; decision 0039), its state one LoanState
 * (workflows/lending/loan/state.ts) and its Updates by phase (workflows/lending/loan/*.ts):
 * created (Pre-Origination until the customer's details are complete, then Origination) → Process:
 * a secured loan gathers its collateral first → the credit bureau decides: an offer to confirm, a
 * rejection, or a referral to a person (also when the bureau does not answer) → the customer accepts
 * the offer → management approves → the disbursement is registered → Active. Every Update answers once
 * its change is in the read model. Paid out, the loan is serviced (decision 0043): it sleeps until its
 * next due date (and grace), goes Past Due and back by its repayments (Updates), is Repaid when all is
 * paid, and continues as new when its history grows.
 */
const isDataRefused = (error: unknown) =>
  error instanceof ApplicationFailure && error.type === LoanRefusal.dataRefused;

export async function lendingLoan(input: LoanInput): Promise<LoanStatus> {
  const state = new LoanState(input);
  const { loan, settings } = state;
  handleApplication(state);
  handleOffer(state);
  handleDisbursement(state);
  handleServicing(state);
  handleSubmissions(state);
  handleAutocharge(state);
  handleBids(state);

  if (input.continued) {
    // A new run of a loan on record: nothing to record again.
    state.created = Promise.resolve(state.copy());
  } else {
    // The application (or a loan registered with its disbursement, with its schedule) is on record.
    state.created = (async () => {
      await startServicing(state);
      return state.record({ by: input.createdBy, comments: input.comments });
    })();
    upsertSearchAttributes([{ key: BusinessStatus, value: loan.status }]);
  }
  await state.created;

  /** Hands the loan over to a new run of this workflow once its history is long (servicing only). */
  const historyLong = () =>
    loan.servicing != null &&
    (workflowInfo().continueAsNewSuggested ||
      workflowInfo().historyLength > (settings.historyLimit ?? 5_000));

  for (;;) {
    if (isClosed(loan.status)) {
      // A loan repaid here still takes corrections of its repayments for the reversal window; one
      // created Repaid (a migrated loan, its only repayment the opening balance) ends at once.
      if (loan.status !== 'Repaid' || !loan.servicing || input.status === 'Repaid') break;
      if (!(await condition(() => loan.status !== 'Repaid', settings.reversalWindowMs))) break;
      continue;
    }
    // Waits for Process, a change, or the next due date (and its grace) of an unpaid instalment; every
    // other operation is an Update handled by its phase.
    const version = loan.version;
    const dueAt = loan.servicing ? nextServicingMoment(loan.servicing) : null;
    const chargeAt = autochargeMoment(state);
    const wakeAt = chargeAt === null || (dueAt !== null && dueAt < chargeAt) ? dueAt : chargeAt;
    const wait = wakeAt === null ? null : wakeAt - Date.now();
    const woken = () =>
      state.submitted !== undefined || loan.version !== version || isClosed(loan.status) || historyLong();
    if (wait === null) await condition(woken);
    else if (wait > 0) await condition(woken, wait);
    const request = state.submitted;
    state.submitted = undefined;
    try {
      if (request) await decide(state, request);
      if (chargeAt !== null && Date.now() >= chargeAt) await autocharge(state);
      if (loan.servicing && dueAt !== null && Date.now() >= dueAt) {
        const moved = assess(state);
        await state.record(moved ? { by: { role: 'system' }, comments: moved } : undefined);
      }
    } catch (error) {
      // A change the database refused is undone and kept as the loan's last refusal (state.record):
      // the loan goes on taking its operations.
      if (!isDataRefused(error)) throw error;
    }
    if (historyLong()) {
      // Every running Update answers, every Signal is handled and every gateway call of a submission has
      // answered first: none is lost across the hand-over.
      await condition(() => allHandlersFinished() && state.settling === 0 && state.events.pending === 0);
      return continueAsNew<typeof lendingLoan>({
        ...input,
        continued: { loan: state.copy(), collateralsAdded: state.collateralsAdded },
      });
    }
  }
  await condition(() => allHandlersFinished() && state.settling === 0 && state.events.pending === 0);
  return loan.status;
}
