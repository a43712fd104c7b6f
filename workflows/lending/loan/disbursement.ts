import { condition, isCancellation, setHandler } from '@temporalio/workflow';
import {
  type LoanPayout,
  PAYOUT_CURRENCIES,
  type PayoutRecipient,
  payDateOf,
  payoutAmount,
  payoutInvoice,
} from '../../../domain/lending/disbursement.ts';
import { LoanRefusal, stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import {
  approveUpdate,
  issueDisbursementUpdate,
  type LoanActor,
  type LoanSnapshot,
  offersOf,
  payoutNotificationSignal,
  registerDisbursementUpdate,
  sameAmount,
} from '../../../domain/lending/loan-process.ts';
import { failureMessage, registerLoanPayout } from './activities.ts';
import { investBids } from './bids.ts';
import { startServicing } from './servicing.ts';
import { type AllowedStep, type LoanState, refuse } from './state.ts';

/**
 * Approval and disbursement: management approves (a referred loan gets its offer), then the loan is
 * paid out, registered (Loans/Disbursements) or as a cash payout through the collection gateway
 * (IssueDisbursement and the gateway's notification, decision 0041), and its servicing starts.
 */
export function handleDisbursement(state: LoanState): void {
  const { loan, input } = state;

  setHandler(
    approveUpdate,
    ({ by, comments, documentsSigned, requiredDocumentsAttached }) => {
      const step = state.allowed('approve', { documentsSigned, requiredDocumentsAttached });
      // A referred loan approved by a person gets the offer the bureau would have made.
      if (step.next === 'Offer confirmation')
        loan.offers = offersOf(input.loanId, state.appliedTerms(), loan.multipleOffers);
      state.move(step);
      return state.record({ by, comments });
    },
    {
      validator: ({ documentsSigned, requiredDocumentsAttached }) =>
        void state.allowed('approve', { documentsSigned, requiredDocumentsAttached }),
    },
  );

  setHandler(
    registerDisbursementUpdate,
    async ({ by, disbursement }) => {
      disburse(state, state.allowed('registerDisbursement', { amountMatches: true }), disbursement.date);
      await startServicing(state);
      return state.record({ by, comments: `disbursement of ${loan.amount} on ${disbursement.date}` });
    },
    {
      validator: ({ disbursement }) => {
        state.allowed('registerDisbursement', {
          amountMatches: sameAmount(disbursement.amount, loan.amount),
        });
        state.refuseWhilePayoutOpen('registerDisbursement');
      },
    },
  );

  setHandler(issueDisbursementUpdate, ({ by, recipient }) => issueDisbursement(state, by, recipient), {
    validator: ({ amount }) => {
      state.allowed('issueDisbursement', { amountMatches: sameAmount(amount, loan.amount) });
      state.refuseWhilePayoutOpen('issueDisbursement');
      if (!PAYOUT_CURRENCIES.includes(loan.currency) || !payoutAmount(loan.amount))
        refuse(
          LoanRefusal.payoutRefused,
          `the collection gateway pays out ${PAYOUT_CURRENCIES.join(', ')} amounts of at most 9 digits and 2 decimals, not ${loan.amount} ${loan.currency}`,
        );
    },
  });

  // The gateway's notification of the payout (verified by the receiver). A repeated one, or one of an
  // earlier attempt's INVOICE, finds no open payout of its INVOICE and changes nothing.
  setHandler(payoutNotificationSignal, async ({ invoice, status, payTime }) => {
    if (status === 'PAID') await payoutCollected(state, invoice, payTime);
    else if (status === 'EXPIRED') await payoutExpired(state, invoice);
  });
}

/** The loan is paid out (Loans/Disbursements, or its cash payout collected): Active with its disbursement. */
function disburse(state: LoanState, step: AllowedStep, date: string): void {
  state.move(step);
  // The amount was checked to be the loan amount: recorded in the loan's notation.
  state.loan.disbursement = { amount: state.loan.amount, date };
  investBids(state, date);
}

/** Updates the open payout of `invoice`; false when the payout is another attempt's or no longer open. */
function settlePayout(state: LoanState, invoice: string, change: Partial<LoanPayout>): boolean {
  if (!state.payoutOpen() || state.loan.payout?.invoice !== invoice) return false;
  state.loan.payout = { ...(state.loan.payout as LoanPayout), ...change };
  return true;
}

/** IssueDisbursement: answers once the gateway has registered the payout, or after 20 s while it goes on. */
async function issueDisbursement(
  state: LoanState,
  by: LoanActor,
  recipient: PayoutRecipient,
): Promise<LoanSnapshot> {
  const { loan, input } = state;
  state.allowed('issueDisbursement', { amountMatches: true });
  const attempt = (loan.payout?.attempt ?? 0) + 1;
  const payout: LoanPayout = {
    attempt,
    invoice: payoutInvoice(input.tenantId, input.loanId, attempt),
    amount: payoutAmount(loan.amount) as string,
    currency: loan.currency,
    state: 'registering',
    idn: null,
    expTime: null,
  };
  loan.payout = payout;
  await state.record({
    by,
    comments: `disbursement issued: a cash payout of ${loan.amount} ${loan.currency} through the collection gateway (invoice ${payout.invoice})`,
  });
  // Runs on after this Update answers if the gateway is slow: the loan stays open meanwhile.
  void registerPayout(state, payout, recipient);
  await condition(
    () => loan.payout?.invoice !== payout.invoice || loan.payout.state !== 'registering',
    '20 seconds',
  );
  if (loan.payout?.invoice === payout.invoice && loan.payout.state === 'failed')
    refuse(LoanRefusal.payoutRefused, loan.payout.reason ?? 'the collection gateway refused the payout');
  return state.copy();
}

/** Registers the payout at the gateway (retried until it answers); a refusal leaves the loan Approved. */
async function registerPayout(state: LoanState, payout: LoanPayout, recipient: PayoutRecipient) {
  const { input } = state;
  try {
    const registered = await registerLoanPayout({
      tenantId: input.tenantId,
      loanId: input.loanId,
      invoice: payout.invoice,
      amount: payout.amount,
      currency: payout.currency,
      recipient,
    });
    // A notification may have settled it while the answer was retried: then it stays settled.
    const change = { state: 'pending' as const, idn: registered.idn, expTime: registered.expTime };
    if (settlePayout(state, payout.invoice, change))
      await state.record({
        by: { role: 'system' },
        comments: `cash payout registered at the collection gateway: invoice ${payout.invoice}${registered.idn ? `, IDN ${registered.idn}` : ''}${registered.expTime ? `, collectable until ${registered.expTime} (Europe/Sofia)` : ''}`,
      });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = failureMessage(error);
    const step = stepOf('payoutFailed', state.loan.status, state.facts());
    if (!settlePayout(state, payout.invoice, { state: 'failed', reason })) return;
    if (step.allowed) state.move(step);
    await state.record({ by: { role: 'system' }, comments: `${reason} (invoice ${payout.invoice})` });
  }
}

/** The PAID notification: the disbursement is registered, as by Loans/Disbursements. */
async function payoutCollected(state: LoanState, invoice: string, payTime: string | undefined) {
  const { loan } = state;
  const step = stepOf('payoutCollected', loan.status, state.facts());
  const date = payDateOf(payTime) ?? new Date().toISOString().slice(0, 10);
  if (!step.allowed || !settlePayout(state, invoice, { state: 'paid' })) return;
  disburse(state, step, date);
  await startServicing(state);
  await state.record({
    by: { role: 'system' },
    comments: `disbursement of ${loan.amount} ${loan.currency} collected at a cash desk on ${date} (invoice ${invoice})`,
  });
}

/** The EXPIRED notification: recorded with its reason; IssueDisbursement may be asked again. */
async function payoutExpired(state: LoanState, invoice: string) {
  const step = stepOf('payoutExpired', state.loan.status, state.facts());
  const reason = 'the cash payout expired uncollected';
  if (!step.allowed || !settlePayout(state, invoice, { state: 'expired', reason })) return;
  state.move(step);
  await state.record({
    by: { role: 'system' },
    comments: `${reason} (invoice ${invoice}): the disbursement may be issued again`,
  });
}
