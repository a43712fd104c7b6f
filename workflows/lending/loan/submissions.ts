import { condition, isCancellation, log, patched, setHandler } from '@temporalio/workflow';
import { payDateOf } from '../../../domain/lending/disbursement.ts';
import { stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import {
  type LoanActor,
  type LoanSnapshot,
  repaymentNotificationSignal,
  submitRepaymentUpdate,
} from '../../../domain/lending/loan-process.ts';
import {
  bookableAmount,
  type RepaymentSubmission,
  roundRepaymentOf,
  type SubmissionRequest,
  submissionInFlight,
  submissionInvoice,
  submissionOpen,
  submissionRepaymentMode,
} from '../../../domain/lending/repayment-submissions.ts';
import { type LoanRepayment, servicingPosition } from '../../../domain/lending/servicing.ts';
import { chargeRepaymentCard, failureMessage, registerRepaymentSlip } from './activities.ts';
import { assess, describe, newRepayment, refuseExcess, replayOf } from './servicing.ts';
import { type LoanState, now, today } from './state.ts';

/**
 * Repayments through the collection gateway (decision 0045): SubmitRepayment (a card charge or a deposit
 * slip) and the gateway's notifications; the money is booked once, whoever comes first.
 */
export function handleSubmissions(state: LoanState): void {
  const { loan } = state;
  const submissionWithId = (submissionId: string) =>
    loan.submissions?.find((held) => held.submissionId === submissionId);
  /** A submission pays at most what the loan owes (in principal for an Early repayment). */
  const refuseSubmission = (request: SubmissionRequest) => {
    const { submissionId, amount } = request;
    state.allowed('submitRepayment');
    const mode = submissionRepaymentMode(request);
    refuseExcess(state, [
      ...(loan.servicing?.repayments ?? []),
      { ...newRepayment({ repaymentId: submissionId, amount, date: today(), mode }) },
    ]);
  };

  setHandler(
    submitRepaymentUpdate,
    async ({ by, submission: request }) => {
      await condition(() => loan.servicing != null);
      // A retried Update: the submission it made.
      if (submissionWithId(request.submissionId)) return state.copy();
      refuseSubmission(request);
      return submit(state, newSubmission(state, request, request.mode), by);
    },
    {
      validator: ({ submission }) => {
        if (!submissionWithId(submission.submissionId)) refuseSubmission(submission);
      },
    },
  );

  // The gateway's notification of a submission's INVOICE (verified by the receiver): PAID books it once,
  // whoever comes first (the charge's answer or the notification); DENIED and EXPIRED close it; REVERSED
  // takes a booked payment back (decision 0069).
  setHandler(repaymentNotificationSignal, async ({ invoice, status, payTime }) => {
    const held = submissionOf(state, invoice);
    if (!held || !loan.servicing) return;
    let comment: string | undefined;
    if (status === 'PAID') comment = paid(state, held, payTime);
    else if (
      (status === 'DENIED' || status === 'EXPIRED') &&
      // A slip paid and taken back is payable again at the gateway until it expires.
      (submissionOpen(held) || (status === 'EXPIRED' && held.status === 'reversed'))
    ) {
      const reason =
        status === 'EXPIRED'
          ? `the deposit slip expired unpaid${held.status === 'reversed' ? ' after the bank took its transfer back' : ''}`
          : 'the collection gateway denied the payment';
      changeSubmission(state, invoice, { status: status === 'EXPIRED' ? 'expired' : 'declined', reason });
      comment = `repayment of ${amountOf(held)}: ${reason} (invoice ${invoice})`;
    } else if (status === 'REVERSED' && patched(REPAYMENT_REVERSED_PATCH)) {
      // A REVERSED naming its payment (PAY_TIME) takes back only that payment; one without (notifications
      // sent before the gateway carried it) as before.
      comment =
        payTime && patched(REVERSAL_BY_PAY_TIME_PATCH)
          ? takeBackPayment(state, held, payTime)
          : takeBack(state, held);
    }
    if (comment) await state.record({ by: { role: 'system' }, comments: comment });
  });
}

/** Running loans take the gateway's REVERSED (decision 0069); their histories before it ignored it. */
export const REPAYMENT_REVERSED_PATCH = 'lending-repayment-reversed';
/** A REVERSED with PAY_TIME is matched to the payment booked (decision 0069, amended 2026-11-28). */
export const REVERSAL_BY_PAY_TIME_PATCH = 'lending-reversal-by-pay-time';

const viaGateway = (submission: RepaymentSubmission) =>
  submission.channel === 'bankTransfer'
    ? `received by bank transfer (IDN ${submission.idn})`
    : 'charged to the card';

/**
 * The gateway's PAID of a submission: booked once (book); after the bank took a payment back, a PAID
 * of another payment (another PAY_TIME: the gateway's next round) books it again, the one taken back
 * delivered again books nothing; a PAID arriving after its own REVERSED is booked as taken back at once.
 */
function paid(state: LoanState, held: RepaymentSubmission, payTime: string | undefined): string | undefined {
  const how = viaGateway(held);
  // A payment the bank took back before the loan booked it (its REVERSED named it; only ever set under
  // REVERSAL_BY_PAY_TIME_PATCH): delivered late, it books nothing.
  if (payTime && held.reversedNotBooked?.includes(payTime)) return undefined;
  if (held.status === 'reversed') {
    if (held.reversals?.some((reversal) => reversal.payTime === (payTime ?? null))) return undefined;
    return book(state, held, payTime, `${how}, paid again after the bank took a transfer back`);
  }
  if (held.reversedAhead && submissionOpen(held)) {
    changeSubmission(state, held.invoice, {
      status: 'reversed',
      reversedAhead: undefined,
      reversals: [...(held.reversals ?? []), { payTime: payTime ?? null, repaymentId: null, at: now() }],
      reason: 'the bank took the transfer back before its payment reached the loan: nothing was booked',
    });
    return `repayment of ${amountOf(held)} ${how} (invoice ${held.invoice}), already taken back by the bank: nothing booked`;
  }
  return book(state, held, payTime, how);
}

/**
 * The gateway's REVERSED of a submission (decision 0069): the bank took back the transfer that paid it.
 * A booked payment's repayment is reversed (its allocation undone: the position and status follow by
 * the servicing rows) and the submission is `reversed`; a repeated REVERSED changes nothing; one
 * arriving before its PAID is kept for that PAID (the slip stays payable); answers the history comment.
 */
function takeBack(state: LoanState, held: RepaymentSubmission, payTime?: string): string | undefined {
  const { loan } = state;
  const { invoice } = held;
  const idn = held.idn ? `, IDN ${held.idn}` : '';
  if (submissionOpen(held)) {
    if (held.reversedAhead) return undefined;
    changeSubmission(state, invoice, { reversedAhead: true });
    return `repayment of ${amountOf(held)}: the bank took back a transfer for it (invoice ${invoice}${idn}) before its payment reached the loan; nothing was booked, the deposit slip stays payable`;
  }
  // Reversed already (a repeated notification), or never paid: nothing to take back.
  if (held.status !== 'paid') return undefined;
  const at = now();
  const repayment = held.repaymentId
    ? state.servicing.repayments.find((candidate) => candidate.repaymentId === held.repaymentId)
    : undefined;
  const reversal = {
    payTime: held.payTime ?? payTime ?? null,
    repaymentId: repayment?.repaymentId ?? null,
    at,
  };
  const taken = {
    status: 'reversed' as const,
    payTime: undefined,
    reversals: [...(held.reversals ?? []), reversal],
  };
  if (!repayment || repayment.reversed) {
    const why = repayment
      ? `its repayment ${repayment.repaymentId} was reversed already`
      : 'nothing of it had been booked';
    changeSubmission(state, invoice, { ...taken, reason: `the bank took the transfer back: ${why}` });
    return `${amountOf(held)} taken back by the bank (invoice ${invoice}${idn}): ${why}`;
  }
  const step = stepOf('submittedRepaymentReversed', loan.status, state.facts());
  if (!step.allowed) {
    // No running loan is in another status with a booked repayment; on record for an operator, once.
    const left = `repayment ${repayment.repaymentId} stays booked (loan ${loan.status}): an operator must settle it`;
    log.warn('a reversed repayment not taken back', { loanId: loan.loanId, invoice, status: loan.status });
    changeSubmission(state, invoice, { ...taken, reason: `the bank took the transfer back: ${left}` });
    return `${describe(state, repayment)}: the bank took the transfer back (invoice ${invoice}${idn}); ${left}`;
  }
  state.servicing.repayments = state.servicing.repayments.map((candidate) =>
    candidate.repaymentId === repayment.repaymentId
      ? { ...candidate, reversed: true, reversedAt: at }
      : candidate,
  );
  const moved = assess(state);
  changeSubmission(state, invoice, {
    ...taken,
    reason: `the bank took the transfer back: repayment ${repayment.repaymentId} reversed`,
  });
  return [
    `${describe(state, repayment)} reversed: the bank took the transfer back (invoice ${invoice}${idn})`,
    moved,
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * The gateway's REVERSED naming the payment taken back by its PAY_TIME (decision 0069, amended
 * 2026-11-28): the payment booked now (or one booked before its PAY_TIME was kept) is taken back as
 * takeBack does; a payment taken back already changes nothing; a payment the loan never booked (its PAID
 * not here yet, or never coming) takes nothing back and is kept only so that its PAID, if it comes, books
 * nothing: the submission is left as it is, and the next genuine payment of the slip is booked.
 */
function takeBackPayment(state: LoanState, held: RepaymentSubmission, payTime: string): string | undefined {
  if (held.reversals?.some((reversal) => reversal.payTime === payTime)) return undefined;
  if (held.reversedNotBooked?.includes(payTime)) return undefined;
  if (held.status === 'paid' && (held.payTime ?? payTime) === payTime) return takeBack(state, held, payTime);
  changeSubmission(state, held.invoice, { reversedNotBooked: [...(held.reversedNotBooked ?? []), payTime] });
  const idn = held.idn ? `, IDN ${held.idn}` : '';
  return `repayment of ${amountOf(held)}: the bank took back a payment of it that the loan had not booked (invoice ${held.invoice}${idn}, PAY_TIME ${payTime}); nothing taken back, and that payment's PAID will book nothing`;
}

/** A new submission on record, then the gateway asked: answers once its answer is on record, or after 20 s. */
async function submit(
  state: LoanState,
  submission: RepaymentSubmission,
  by: LoanActor,
): Promise<LoanSnapshot> {
  state.loan.submissions = [...(state.loan.submissions ?? []), submission];
  // On record before the gateway is asked: its notification finds the loan by the INVOICE.
  await state.record();
  let settled = false;
  void settle(state, submission, by).then(() => {
    settled = true;
  });
  await condition(() => settled, '20 seconds');
  return state.copy();
}

export const newSubmission = (
  state: LoanState,
  request: Pick<SubmissionRequest, 'submissionId' | 'amount' | 'paymentMethodId' | 'repaymentMode'>,
  channel: RepaymentSubmission['channel'],
): RepaymentSubmission => ({
  submissionId: request.submissionId,
  invoice: submissionInvoice(request.submissionId),
  channel,
  // Kept only when not the default: submissions as before stay as they were.
  ...(request.repaymentMode && request.repaymentMode !== 'Regular payment'
    ? { repaymentMode: request.repaymentMode }
    : {}),
  amount: request.amount,
  currency: state.loan.currency,
  status: channel === 'bankTransfer' ? 'registering' : 'charging',
  paymentMethodId: request.paymentMethodId,
  idn: null,
  iban: null,
  beneficiary: null,
  expiresAt: null,
  reason: null,
  repaymentId: null,
  createdAt: now(),
  updatedAt: now(),
});

const submissionOf = (state: LoanState, invoice: string) =>
  state.loan.submissions?.find((held) => held.invoice === invoice);

function changeSubmission(state: LoanState, invoice: string, change: Partial<RepaymentSubmission>): void {
  state.loan.submissions = (state.loan.submissions ?? []).map((held) =>
    held.invoice === invoice ? { ...held, ...change, updatedAt: now() } : held,
  );
}

export const amountOf = (submission: RepaymentSubmission) =>
  `${submission.amount} ${submission.currency}${submission.channel === 'autocharge' ? ` (auto-charge of instalment ${submission.instalments?.join(', ')})` : ''}`;

/** Asks the gateway for a new submission (in the background of the Update that made it). */
export function settle(state: LoanState, submission: RepaymentSubmission, by: LoanActor): Promise<void> {
  state.settling += 1;
  const asked =
    submission.channel === 'bankTransfer'
      ? registerSlip(state, submission, by)
      : chargeCard(state, submission, by);
  return asked.finally(() => {
    state.settling -= 1;
  });
}

/**
 * Books the money of a submission once per payment (in its repayment mode, its INVOICE the reference; a
 * payment after a reversal as the next round: roundRepaymentOf), at most what the loan owes (in principal
 * for an Early repayment); answers the history comment, or undefined when it was booked already.
 */
function book(
  state: LoanState,
  submission: RepaymentSubmission,
  payTime: string | null | undefined,
  how: string,
) {
  const { loan } = state;
  const { invoice } = submission;
  const { repaymentId, reference } = roundRepaymentOf(submission);
  const mode = submissionRepaymentMode(submission);
  const request = { repaymentId, reference, amount: submission.amount, date: '', mode };
  if (replayOf(state, request)) {
    if (submission.status !== 'paid') changeSubmission(state, invoice, { status: 'paid', repaymentId });
    return undefined;
  }
  const held = state.servicing;
  const position = servicingPosition(held.schedule, held.repayments, held.graceMs, now());
  const payoff = mode === 'Early repayment' ? position.outstandingPrincipal : position.payoffAmount;
  const step = stepOf('submittedRepaymentPaid', loan.status, state.facts());
  const { booked, excess } = step.allowed
    ? bookableAmount(submission.amount, payoff)
    : { booked: null, excess: submission.amount };
  const beyond = excess
    ? `${excess} ${loan.currency} received beyond what the loan owes (status ${loan.status}): to be refunded`
    : null;
  // The payment now in force: a REVERSED takes back this one (decision 0069).
  const paidNow = { status: 'paid' as const, payTime: payTime ?? null, reason: beyond };
  if (!booked) {
    changeSubmission(state, invoice, {
      ...paidNow,
      ...(submission.reversals?.length ? { repaymentId: null } : {}),
    });
    return `${amountOf(submission)} ${how} (invoice ${reference}); ${beyond}`;
  }
  const date = payDateOf(payTime ?? undefined) ?? today();
  const repayment: LoanRepayment = {
    repaymentId,
    amount: booked,
    // A repayment never precedes the disbursement it repays (servicing allocates by date).
    date: loan.disbursement && date < loan.disbursement.date ? loan.disbursement.date : date,
    mode,
    reference,
    reversed: false,
  };
  state.servicing.repayments = [...held.repayments, repayment];
  const moved = assess(state);
  changeSubmission(state, invoice, { ...paidNow, repaymentId });
  return [`${describe(state, repayment)} ${how} (invoice ${reference})`, beyond, moved]
    .filter(Boolean)
    .join('; ');
}

/** Charges the submission's card (the default one when it names none) and books or records the outcome. */
async function chargeCard(state: LoanState, submission: RepaymentSubmission, by: LoanActor): Promise<void> {
  const { loan, input } = state;
  const { invoice } = submission;
  const what = submission.channel === 'autocharge' ? 'auto-charge' : 'card repayment';
  let comment: string | undefined;
  try {
    const result = await chargeRepaymentCard({
      tenantId: input.tenantId,
      customerId: loan.customerId,
      loanId: input.loanId,
      cardId: submission.paymentMethodId,
      invoice,
      amount: submission.amount,
      currency: submission.currency,
    });
    if (result.cardId) changeSubmission(state, invoice, { paymentMethodId: result.cardId, idn: result.idn });
    const held = submissionOf(state, invoice) as RepaymentSubmission;
    const charged =
      submission.channel === 'autocharge'
        ? `auto-charged for instalment ${submission.instalments?.join(', ')} to ${result.card}`
        : `charged to ${result.card}`;
    if (result.outcome === 'paid') comment = book(state, held, result.payTime, charged);
    else if (result.outcome === 'declined' && submissionInFlight(held)) {
      changeSubmission(state, invoice, { status: 'declined', reason: result.reason });
      comment = `${what} of ${amountOf(held)} declined${result.card ? ` (${result.card})` : ''}: ${result.reason} (invoice ${invoice})`;
    }
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = failureMessage(error);
    if (submissionInFlight(submissionOf(state, invoice) as RepaymentSubmission)) {
      changeSubmission(state, invoice, { status: 'failed', reason });
      comment = `${what} of ${amountOf(submission)} not charged: ${reason} (invoice ${invoice})`;
    }
  }
  await state.record(comment ? { by, comments: comment } : undefined);
}

/** Registers the deposit slip a bank-transfer submission is paid by. */
async function registerSlip(state: LoanState, submission: RepaymentSubmission, by: LoanActor): Promise<void> {
  const { invoice } = submission;
  let comment: string;
  try {
    const slip = await registerRepaymentSlip({
      tenantId: state.input.tenantId,
      loanId: state.input.loanId,
      invoice,
      amount: submission.amount,
      currency: submission.currency,
    });
    if (!submissionInFlight(submissionOf(state, invoice) as RepaymentSubmission)) return;
    changeSubmission(state, invoice, { status: 'pending', ...slip });
    comment = `repayment of ${amountOf(submission)} by bank transfer: deposit slip IDN ${slip.idn} registered (invoice ${invoice}${slip.expiresAt ? `, payable until ${slip.expiresAt}` : ''})`;
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = failureMessage(error);
    changeSubmission(state, invoice, { status: 'failed', reason });
    comment = `repayment of ${amountOf(submission)} by bank transfer not registered: ${reason} (invoice ${invoice})`;
  }
  await state.record({ by, comments: comment });
}
