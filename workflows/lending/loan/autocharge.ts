import { patched, setHandler, uuid4 } from '@temporalio/workflow';
import { PAYOUT_CURRENCIES, payoutAmount } from '../../../domain/lending/disbursement.ts';
import { setAutochargeUpdate } from '../../../domain/lending/loan-process.ts';
import {
  instalmentsReached,
  instalmentsToAutocharge,
  nextAutochargeMoment,
  submissionIdOf,
} from '../../../domain/lending/repayment-submissions.ts';
import { servicingPosition } from '../../../domain/lending/servicing.ts';
import { type LoanState, now } from './state.ts';
import { amountOf, newSubmission, settle } from './submissions.ts';

/**
 * Auto-charge on due dates (decision 0045): management turns it on or off; the main loop wakes at the
 * next instalment's moment (`autochargeMoment`) and charges what is due (`autocharge`).
 */
export function handleAutocharge(state: LoanState): void {
  const { loan } = state;
  setHandler(
    setAutochargeUpdate,
    ({ by, enabled, comment }) => {
      Object.assign(loan, { autocharge: enabled, autochargeComment: comment ?? null });
      // Only due dates reached with auto-charge on are charged: those before are left alone.
      if (enabled) loan.autochargeHandled = autochargeBaseline(state);
      return state.record({
        by,
        comments: `auto-charge ${enabled ? 'enabled' : 'disabled'}${comment ? `: ${comment}` : ''}`,
      });
    },
    {
      validator: ({ enabled }) => void state.allowed(enabled ? 'enableAutocharge' : 'disableAutocharge'),
    },
  );
}

const autochargeAtMs = (state: LoanState) => state.settings.autochargeAtMs ?? 0;

/** Instalments whose auto-charge moment has passed: enabling auto-charge leaves them alone. */
function autochargeBaseline(state: LoanState): number[] {
  const { loan } = state;
  const handled = new Set(loan.autochargeHandled ?? []);
  if (loan.servicing)
    for (const number of instalmentsReached(loan.servicing.position, Date.now(), autochargeAtMs(state)))
      handled.add(number);
  return [...handled].sort((a, b) => a - b);
}

/**
 * The next moment an instalment's due date asks for an auto-charge; none while auto-charge is off.
 * Loans that ran before auto-charges were built keep their timers until they run on this code.
 */
export function autochargeMoment(state: LoanState): number | null {
  const { loan } = state;
  const serviced = loan.status === 'Active' || loan.status === 'Past Due';
  if (!loan.autocharge || !loan.servicing || !serviced || !patched('lending-autocharge')) return null;
  loan.autochargeHandled ??= autochargeBaseline(state);
  return nextAutochargeMoment(loan.servicing.position, loan.autochargeHandled, autochargeAtMs(state));
}

/** Charges what is due now (overdue included) to the default card, once per instalment; the outcome in the history. */
export async function autocharge(state: LoanState): Promise<void> {
  const { loan } = state;
  const held = state.servicing;
  const position = servicingPosition(held.schedule, held.repayments, held.graceMs, now());
  const instalments = instalmentsToAutocharge(
    position,
    loan.autochargeHandled ?? [],
    Date.now(),
    autochargeAtMs(state),
  );
  if (instalments.length === 0) return;
  loan.autochargeHandled = [...(loan.autochargeHandled ?? []), ...instalments];
  const amount = payoutAmount(position.dueNow);
  const submissionId = submissionIdOf(uuid4().replaceAll('-', '').slice(0, 16));
  const submission = {
    ...newSubmission(state, { submissionId, amount: position.dueNow, paymentMethodId: null }, 'autocharge'),
    instalments,
  };
  if (!amount || !PAYOUT_CURRENCIES.includes(loan.currency)) {
    const reason = `the collection gateway charges ${PAYOUT_CURRENCIES.join(', ')} amounts only`;
    loan.submissions = [...(loan.submissions ?? []), { ...submission, status: 'declined', reason }];
    await state.record({
      by: { role: 'system' },
      comments: `auto-charge of ${amountOf(submission)} not possible: ${reason}`,
    });
    return;
  }
  loan.submissions = [...(loan.submissions ?? []), { ...submission, amount }];
  await state.record();
  // In the background: a gateway that does not answer must not hold the loan's due dates back.
  void settle(state, { ...submission, amount }, { role: 'system' });
}
