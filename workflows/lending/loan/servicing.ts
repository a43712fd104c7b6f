import { condition, setHandler } from '@temporalio/workflow';
import { type LoanOperation, LoanRefusal, stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import {
  cancelRolloverUpdate,
  editRepaymentUpdate,
  type LoanActor,
  type RepaymentRequest,
  registerRepaymentUpdate,
  requestRolloverUpdate,
  reverseRepaymentUpdate,
} from '../../../domain/lending/loan-process.ts';
import {
  type LoanRepayment,
  openingRepayment,
  RepaymentRefused,
  servicingPosition,
} from '../../../domain/lending/servicing.ts';
import { loanSchedule } from './activities.ts';
import { type LoanState, now, refuse } from './state.ts';

/**
 * Servicing (decision 0043): from its disbursement on, the loan has a schedule; management registers,
 * edits and reverses repayments, the customer asks for a rollover, and the status follows the position
 * (the servicing rows: Past Due, back to Active, Repaid).
 */
export function handleServicing(state: LoanState): void {
  const { loan } = state;

  setHandler(
    registerRepaymentUpdate,
    async ({ by, repayment }) => {
      // A loan paid out a moment ago may still be fetching its schedule.
      await condition(() => loan.servicing != null);
      if (replayOf(state, repayment)) return state.copy();
      state.allowed('registerRepayment');
      const repayments = [...state.servicing.repayments, newRepayment(repayment)];
      return applyRepayments(state, repayments, by, describe(state, repayment));
    },
    {
      validator: ({ repayment }) => {
        if (replayOf(state, repayment)) return;
        state.allowed('registerRepayment');
        refuseExcess(state, [...(loan.servicing?.repayments ?? []), newRepayment(repayment)]);
      },
    },
  );

  const repaymentOf = (repaymentId: string) =>
    loan.servicing?.repayments.find((held) => held.repaymentId === repaymentId);
  const edited = ({ repaymentId, amount, date, mode }: Omit<RepaymentRequest, 'reference'>) =>
    state.servicing.repayments.map((held) =>
      held.repaymentId === repaymentId ? { ...held, amount, date, mode } : held,
    );
  setHandler(
    editRepaymentUpdate,
    ({ by, repayment }) => {
      state.allowed('correctRepayment');
      return applyRepayments(state, edited(repayment), by, `${describe(state, repayment)}: edited`);
    },
    {
      validator: ({ repayment }) => {
        state.allowed('correctRepayment');
        const held = repaymentOf(repayment.repaymentId);
        if (!held || held.reversed)
          refuse(
            LoanRefusal.repaymentNotFound,
            `the loan has no repayment ${repayment.repaymentId} in force`,
          );
        refuseExcess(state, edited(repayment));
      },
    },
  );
  setHandler(
    reverseRepaymentUpdate,
    ({ by, repaymentId }) => {
      const held = repaymentOf(repaymentId);
      // Reversed already: a repeated DELETE changes nothing.
      if (!held || held.reversed) return state.copy();
      state.allowed('correctRepayment');
      const repayments = state.servicing.repayments.map((candidate) =>
        candidate.repaymentId === repaymentId
          ? { ...candidate, reversed: true, reversedAt: now() }
          : candidate,
      );
      return applyRepayments(state, repayments, by, `${describe(state, held)}: reversed`);
    },
    {
      validator: ({ repaymentId }) => {
        state.allowed('correctRepayment');
        if (!repaymentOf(repaymentId))
          refuse(LoanRefusal.repaymentNotFound, `the loan has no repayment ${repaymentId}`);
      },
    },
  );

  setHandler(
    requestRolloverUpdate,
    ({ by }) => {
      state.allowed('requestRollover');
      loan.rolloverRequested = true;
      return state.record({ by, comments: 'rollover requested' });
    },
    { validator: (_request) => void state.allowed('requestRollover') },
  );
  setHandler(
    cancelRolloverUpdate,
    ({ by }) => {
      state.allowed('cancelRollover');
      loan.rolloverRequested = false;
      return state.record({ by, comments: 'rollover request cancelled' });
    },
    { validator: (_request) => void state.allowed('cancelRollover') },
  );
}

/** Fixes the schedule from the disbursement date (the activity reads the product) and the position. */
export async function startServicing(state: LoanState): Promise<void> {
  const { loan, input, settings } = state;
  if (loan.servicing || !loan.disbursement) return;
  const { date } = loan.disbursement;
  const schedule = await loanSchedule({
    tenantId: input.tenantId,
    productName: loan.productName,
    promoCode: loan.promoCode,
    amount: loan.amount,
    term: loan.term,
    startDate: date,
  });
  // Management create with a disbursement: what was repaid before the loan came here.
  const opening = input.disbursement
    ? openingRepayment(schedule, input.loanId, input.repaidAmount, now().slice(0, 10))
    : null;
  loan.servicing = {
    schedule,
    repayments: opening ? [opening] : [],
    graceMs: settings.graceMs,
    position: servicingPosition(schedule, [], settings.graceMs, now()),
  };
  assess(state);
}

/** The position now and the status it asks for (the servicing rows); answers the move's comment. */
export function assess(state: LoanState): string | undefined {
  const { loan } = state;
  const held = state.servicing;
  const position = servicingPosition(held.schedule, held.repayments, held.graceMs, now());
  held.position = position;
  const { state: where } = position;
  let operation: LoanOperation | undefined;
  if (loan.status === 'Repaid') operation = where === 'repaid' ? undefined : 'repaymentCorrected';
  else if (where === 'repaid') operation = 'fullyRepaid';
  else if (where === 'overdue' && loan.status === 'Active') operation = 'instalmentOverdue';
  else if (where === 'current' && loan.status === 'Past Due') operation = 'overduePaid';
  if (!operation) return undefined;
  const step = stepOf(operation, loan.status, state.facts({ schedule: where }));
  if (!step.allowed || !state.move(step)) return undefined;
  if (operation === 'instalmentOverdue')
    return `past due since ${position.pastDueSince}: ${position.overdueAmount} ${loan.currency} overdue`;
  if (operation === 'overduePaid') return 'every overdue instalment is paid';
  if (operation === 'fullyRepaid') return 'the whole schedule is repaid';
  return `a corrected repayment leaves ${position.payoffAmount} ${loan.currency} owing`;
}

/** Refuses repayments of which one pays more than the loan owes (nothing changes then). */
export function refuseExcess(state: LoanState, repayments: LoanRepayment[]): void {
  const held = state.loan.servicing;
  if (!held) return;
  try {
    servicingPosition(held.schedule, repayments, held.graceMs, now());
  } catch (error) {
    if (error instanceof RepaymentRefused) refuse(LoanRefusal.repaymentExceedsBalance, error.message);
    throw error;
  }
}

/** Applies the repayments as they now are: balances and status recomputed, recorded with `comment`. */
function applyRepayments(state: LoanState, repayments: LoanRepayment[], by: LoanActor, comment: string) {
  state.servicing.repayments = repayments;
  const moved = assess(state);
  return state.record({ by, comments: moved ? `${comment}; ${moved}` : comment });
}

/** The repayment a repeated request (same reference, or same id) stands for. */
export const replayOf = (state: LoanState, { repaymentId, reference }: RepaymentRequest) =>
  state.loan.servicing?.repayments.find(
    (held) => held.repaymentId === repaymentId || (reference !== undefined && held.reference === reference),
  );

export const newRepayment = (request: RepaymentRequest): LoanRepayment => ({
  repaymentId: request.repaymentId,
  amount: request.amount,
  date: request.date,
  mode: request.mode,
  reference: request.reference ?? null,
  reversed: false,
});

export const describe = (
  state: LoanState,
  repayment: Pick<LoanRepayment, 'repaymentId' | 'amount' | 'date' | 'mode'>,
) =>
  `repayment ${repayment.repaymentId} of ${repayment.amount} ${state.loan.currency} on ${repayment.date} (${repayment.mode})`;
