import { condition, patched, setHandler } from '@temporalio/workflow';
import { type LoanOperation, LoanRefusal, stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import {
  addCollateralUpdate,
  cancelUpdate,
  deleteCollateralUpdate,
  detailsCompletedUpdate,
  type LoanActor,
  type LoanDecision,
  type LoanSnapshot,
  loanCreatedUpdate,
  offersOf,
  processUpdate,
  updateCoApplicantUpdate,
  updateCollateralUpdate,
  updateLoanDetailsUpdate,
} from '../../../domain/lending/loan-process.ts';
import { askBureau } from './activities.ts';
import type { LoanState, ProcessRequest } from './state.ts';
import { refuse } from './state.ts';

/**
 * The application and its decision: created (Pre-Origination until the customer's details are
 * complete, then Origination), changed, cancelled, and sent for processing (a secured loan gathers its
 * collateral first); the main loop then asks the credit bureau (`decide`).
 */
export function handleApplication(state: LoanState): void {
  // Update-with-Start delivers it as the workflow starts: it answers once the first record is written.
  setHandler(loanCreatedUpdate, async () => {
    await condition(() => state.created !== undefined);
    return state.created as Promise<LoanSnapshot>;
  });

  setHandler(detailsCompletedUpdate, () => completeDetails(state), {
    validator: () => void state.allowed('detailsCompleted'),
  });

  setHandler(processUpdate, (request) => sendForProcessing(state, request), {
    validator: (_request) => {
      state.allowed('process');
      state.refuseWhileDeciding();
    },
  });

  const validate = (operation: LoanOperation) => (_request?: unknown) => {
    state.allowed(operation);
    state.refuseWhileDeciding();
  };
  const { loan } = state;

  setHandler(
    updateLoanDetailsUpdate,
    ({ by, terms, secured, currency }) =>
      changeApplication(state, 'updateLoanDetails', by, () => {
        Object.assign(loan, {
          productName: terms.productName,
          promoCode: terms.promoCode ?? null,
          amount: terms.amount,
          term: terms.term,
          secured,
          currency,
        });
      }),
    { validator: validate('updateLoanDetails') },
  );

  setHandler(
    addCollateralUpdate,
    ({ by, collateral }) =>
      changeApplication(state, 'changeCollaterals', by, () => {
        state.collateralsAdded += 1;
        loan.collaterals.push({ collateralId: String(state.collateralsAdded), ...collateral });
      }),
    { validator: validate('changeCollaterals') },
  );
  const refuseUnknownCollateral = (collateralId: string) => {
    validate('changeCollaterals')();
    if (!loan.collaterals.some((collateral) => collateral.collateralId === collateralId))
      refuse(LoanRefusal.collateralNotFound, `the loan has no collateral ${collateralId}`);
  };
  setHandler(
    updateCollateralUpdate,
    ({ by, collateral }) =>
      changeApplication(state, 'changeCollaterals', by, () => {
        loan.collaterals = loan.collaterals.map((held) =>
          held.collateralId === collateral.collateralId ? collateral : held,
        );
      }),
    { validator: ({ collateral }) => refuseUnknownCollateral(collateral.collateralId) },
  );
  setHandler(
    deleteCollateralUpdate,
    ({ by, collateralId }) =>
      changeApplication(state, 'changeCollaterals', by, () => {
        loan.collaterals = loan.collaterals.filter((held) => held.collateralId !== collateralId);
      }),
    { validator: ({ collateralId }) => refuseUnknownCollateral(collateralId) },
  );

  setHandler(
    updateCoApplicantUpdate,
    ({ by, coApplicant }) =>
      changeApplication(state, 'updateCoApplicant', by, () => {
        loan.coApplicant = coApplicant;
      }),
    { validator: validate('updateCoApplicant') },
  );

  setHandler(
    cancelUpdate,
    ({ by, reasonId, comments }) => {
      state.move(state.allowed('cancel'));
      return state.record({ by, reasonId, comments });
    },
    {
      validator: (_request) => {
        state.allowed('cancel');
        state.refuseWhilePayoutOpen('cancel');
      },
    },
  );
}

function completeDetails(state: LoanState): Promise<LoanSnapshot> {
  const moved = state.move(state.allowed('detailsCompleted'));
  return moved
    ? state.record({ by: { role: 'system' }, comments: "the customer's details are complete" })
    : state.record();
}

/**
 * Process: a secured loan goes to Collateral; otherwise the request is recorded and handed to the main
 * loop, which asks the bureau. Answers once the request is on record (the decision follows through the
 * read model and the loan-status webhook); histories of before that change wait for the decision.
 */
async function sendForProcessing(
  state: LoanState,
  { by, comments, applicant }: ProcessRequest,
): Promise<LoanSnapshot> {
  const step = state.allowed('process');
  if (step.next !== 'automatic decision') {
    state.move(step);
    return state.record({ by, comments });
  }
  // Refuses a second Process from here on; the request is in the history, then the bureau is asked.
  state.deciding = true;
  let recorded: LoanSnapshot;
  try {
    recorded = await state.record({ by, comments: comments ?? 'sent for processing' });
  } catch (error) {
    // Not on record (the database refused it): Process may be asked again.
    state.deciding = false;
    throw error;
  }
  const before = state.decisions;
  state.submitted = { applicant, by, comments };
  if (patched('lending-process-answers-at-once')) return recorded;
  await condition(() => state.decisions > before);
  return state.copy();
}

/** Applies a change of the application: in a decided status the loan goes back to Reprocessing. */
async function changeApplication(
  state: LoanState,
  operation: LoanOperation,
  by: LoanActor,
  change: () => void,
): Promise<LoanSnapshot> {
  const step = state.allowed(operation);
  change();
  if (state.move(step)) {
    state.loan.offers = [];
    state.loan.acceptedOfferId = null;
    return state.record({ by, comments: `${operation}: to be decided again` });
  }
  return state.record();
}

/** The credit bureau's answer moves the loan by the `decision` rows; an unanswered check refers it. */
export async function decide(state: LoanState, request: ProcessRequest): Promise<void> {
  const { loan, input } = state;
  const decision = await askBureau(input, loan, request.applicant);
  // The bureau has answered: the decided loan takes its next operations once the read model shows it.
  state.deciding = false;
  const step = stepOf('decision', loan.status, state.facts({ bureau: decision.outcome }));
  // Cancelled while the bureau was asked: the answer changes nothing.
  if (step.allowed) {
    loan.decision = decision;
    if (decision.outcome === 'approve')
      loan.offers = offersOf(input.loanId, state.appliedTerms(), loan.multipleOffers);
    state.move(step);
    await state.record({ by: { role: 'system' }, comments: decisionComment(decision) });
  }
  state.decisions += 1;
}

const decisionComment = (decision: LoanDecision) =>
  `credit bureau: ${decision.outcome}${decision.reasons.length > 0 ? ` (${decision.reasons.join('; ')})` : ''}`;
