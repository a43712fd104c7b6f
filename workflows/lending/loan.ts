import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { LendingActivities } from '../../activities/lending/index.ts';
import {
  type LoanPayout,
  PAYOUT_CURRENCIES,
  type PayoutRecipient,
  payDateOf,
  payoutAmount,
  payoutInvoice,
} from '../../domain/lending/disbursement.ts';
import {
  isClosed,
  type LoanFacts,
  type LoanOperation,
  LoanRefusal,
  type LoanStatus,
  type LoanStep,
  statusAfter,
  stepOf,
} from '../../domain/lending/loan-lifecycle.ts';
import {
  acceptOfferUpdate,
  addCollateralUpdate,
  approveUpdate,
  type BureauApplicant,
  cancelRolloverUpdate,
  cancelUpdate,
  declineOfferUpdate,
  defaultServicingSettings,
  deleteCollateralUpdate,
  detailsCompletedUpdate,
  editRepaymentUpdate,
  issueDisbursementUpdate,
  type LoanActor,
  type LoanDecision,
  type LoanInput,
  type LoanSnapshot,
  type LoanStatusChange,
  loanCreatedUpdate,
  offersOf,
  payoutNotificationSignal,
  processUpdate,
  type RepaymentRequest,
  registerDisbursementUpdate,
  registerRepaymentUpdate,
  repaymentNotificationSignal,
  requestRolloverUpdate,
  reverseRepaymentUpdate,
  sameAmount,
  setAutochargeUpdate,
  submitRepaymentUpdate,
  updateCoApplicantUpdate,
  updateCollateralUpdate,
  updateLoanDetailsUpdate,
} from '../../domain/lending/loan-process.ts';
import {
  bookableAmount,
  instalmentsReached,
  instalmentsToAutocharge,
  nextAutochargeMoment,
  type RepaymentSubmission,
  repaymentIdOf,
  type SubmissionRequest,
  submissionIdOf,
  submissionInFlight,
  submissionInvoice,
  submissionOpen,
} from '../../domain/lending/repayment-submissions.ts';
import {
  type LoanRepayment,
  type LoanServicing,
  nextServicingMoment,
  openingRepayment,
  RepaymentRefused,
  servicingPosition,
} from '../../domain/lending/servicing.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';

const { recordLoan, loanSchedule } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** The payout's registration: retried until the gateway answers (the INVOICE makes a retry a replay). */
const { registerLoanPayout } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['PayoutRefused'],
  },
});

/**
 * A payment through the collection gateway (decision 0045): retried while the gateway cannot be reached
 * (for a day at most; the INVOICE makes a retry a replay there); a refusal is not retried.
 */
const { chargeRepaymentCard, registerRepaymentSlip } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['RepaymentRefused'],
  },
});

const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, type);
};

/**
 * One loan (`lending-loan-<tenantId>-<loanId>`), from its application to its end, moved only by the
 * transition table (domain/lending/loan-lifecycle.ts; decision 0039):
 * created (Pre-Origination until the customer's details are complete, then Origination) → Process:
 * a secured loan gathers its collateral first → the credit bureau decides: an offer to confirm, a
 * rejection, or a referral to a person (also when the bureau does not answer) → the customer accepts
 * the offer → management approves → the disbursement is registered → Active. Every Update answers once
 * its change is in the read model. Paid out, the loan is serviced (decision 0043): it sleeps until its
 * next due date (and grace), goes Past Due and back by its repayments (Updates), is Repaid when all is
 * paid, and continues as new when its history grows.
 */
export async function lendingLoan(input: LoanInput): Promise<LoanStatus> {
  const settings = input.servicing ?? defaultServicingSettings;
  const loan: LoanSnapshot = input.continued?.loan ?? {
    tenantId: input.tenantId,
    loanId: input.loanId,
    customerId: input.customerId,
    productName: input.terms.productName,
    promoCode: input.terms.promoCode ?? null,
    currency: input.currency,
    amount: input.terms.amount,
    term: input.terms.term,
    secured: input.secured,
    status: input.status,
    offers: [],
    acceptedOfferId: null,
    multipleOffers: input.multipleOffers,
    collaterals: [],
    coApplicant: null,
    rolloverRequested: false,
    autocharge: false,
    autochargeComment: null,
    decision: null,
    disbursement: input.disbursement ?? null,
    payout: null,
    version: 0,
  };
  let collateralsAdded = input.continued?.collateralsAdded ?? 0;
  /** Process asked for the bureau's decision; the main flow asks it. */
  let submitted: { applicant: BureauApplicant; by: LoanActor; comments?: string | undefined } | undefined;
  let deciding = false;
  let decisions = 0;

  const facts = (extra: LoanFacts = {}): LoanFacts => ({
    secured: loan.secured,
    collateralCount: loan.collaterals.length,
    offerAccepted: loan.acceptedOfferId !== null,
    multipleOffers: loan.multipleOffers,
    rolloverRequested: loan.rolloverRequested,
    ...extra,
  });
  const allowed = (operation: LoanOperation, extra?: LoanFacts): Extract<LoanStep, { allowed: true }> => {
    const step = stepOf(operation, loan.status, facts(extra));
    if (!step.allowed) return refuse(step.type, step.message);
    return step;
  };
  const appliedTerms = () => ({ productName: loan.productName, amount: loan.amount, term: loan.term });
  const refuseWhileDeciding = () => {
    if (deciding) refuse(LoanRefusal.decisionInProgress, 'the credit bureau is deciding this loan');
  };

  /** Records the loan as it now is (and its status change, if any); answers what was recorded. */
  async function record(change?: Omit<LoanStatusChange, 'at' | 'status'>): Promise<LoanSnapshot> {
    loan.version += 1;
    const snapshot = copyOf(loan);
    const at = new Date().toISOString();
    await recordLoan({
      snapshot,
      at,
      ...(change ? { change: { ...change, status: snapshot.status, at } } : {}),
    });
    return snapshot;
  }
  /** Moves the loan by a step of the table (before the first await: a second Update sees the new status). */
  function move(step: LoanStep & { allowed: true }): boolean {
    const next = statusAfter(loan.status, step.next);
    if (next === loan.status) return false;
    loan.status = next;
    upsertSearchAttributes([{ key: BusinessStatus, value: next }]);
    return true;
  }
  /** Applies a change of the application: in a decided status the loan goes back to Reprocessing. */
  async function changeApplication(
    operation: LoanOperation,
    by: LoanActor,
    change: () => void,
  ): Promise<LoanSnapshot> {
    const step = allowed(operation);
    change();
    if (move(step)) {
      loan.offers = [];
      loan.acceptedOfferId = null;
      return record({ by, comments: `${operation}: to be decided again` });
    }
    return record();
  }
  /** The validator of a change of the application: its status, and no decision under way. */
  const validate = (operation: LoanOperation) => {
    allowed(operation);
    refuseWhileDeciding();
  };

  // --- the application ---------------------------------------------------------------------------

  let created: Promise<LoanSnapshot> | undefined;
  // Update-with-Start delivers it as the workflow starts: it answers once the first record is written.
  setHandler(loanCreatedUpdate, async () => {
    await condition(() => created !== undefined);
    return created as Promise<LoanSnapshot>;
  });

  setHandler(
    detailsCompletedUpdate,
    () => {
      const moved = move(allowed('detailsCompleted'));
      return moved
        ? record({ by: { role: 'system' }, comments: "the customer's details are complete" })
        : record();
    },
    { validator: () => void allowed('detailsCompleted') },
  );

  setHandler(
    processUpdate,
    async ({ by, comments, applicant }) => {
      const step = allowed('process');
      if (step.next !== 'automatic decision') {
        move(step);
        return record({ by, comments });
      }
      // Refuses a second Process from here on; the request is in the history, then the bureau is asked.
      deciding = true;
      await record({ by, comments: comments ?? 'sent for processing' });
      const before = decisions;
      submitted = { applicant, by, comments };
      await condition(() => decisions > before);
      return copyOf(loan);
    },
    {
      validator: (_request) => {
        allowed('process');
        refuseWhileDeciding();
      },
    },
  );

  setHandler(
    updateLoanDetailsUpdate,
    ({ by, terms, secured, currency }) =>
      changeApplication('updateLoanDetails', by, () => {
        Object.assign(loan, {
          productName: terms.productName,
          promoCode: terms.promoCode ?? null,
          amount: terms.amount,
          term: terms.term,
          secured,
          currency,
        });
      }),
    { validator: (_request) => validate('updateLoanDetails') },
  );

  setHandler(
    addCollateralUpdate,
    ({ by, collateral }) =>
      changeApplication('changeCollaterals', by, () => {
        collateralsAdded += 1;
        loan.collaterals.push({ collateralId: String(collateralsAdded), ...collateral });
      }),
    { validator: (_request) => validate('changeCollaterals') },
  );
  const refuseUnknownCollateral = (collateralId: string) => {
    if (!loan.collaterals.some((collateral) => collateral.collateralId === collateralId))
      refuse(LoanRefusal.collateralNotFound, `the loan has no collateral ${collateralId}`);
  };
  setHandler(
    updateCollateralUpdate,
    ({ by, collateral }) =>
      changeApplication('changeCollaterals', by, () => {
        loan.collaterals = loan.collaterals.map((held) =>
          held.collateralId === collateral.collateralId ? collateral : held,
        );
      }),
    {
      validator: ({ collateral }) => {
        validate('changeCollaterals');
        refuseUnknownCollateral(collateral.collateralId);
      },
    },
  );
  setHandler(
    deleteCollateralUpdate,
    ({ by, collateralId }) =>
      changeApplication('changeCollaterals', by, () => {
        loan.collaterals = loan.collaterals.filter((held) => held.collateralId !== collateralId);
      }),
    {
      validator: ({ collateralId }) => {
        validate('changeCollaterals');
        refuseUnknownCollateral(collateralId);
      },
    },
  );

  setHandler(
    updateCoApplicantUpdate,
    ({ by, coApplicant }) =>
      changeApplication('updateCoApplicant', by, () => {
        loan.coApplicant = coApplicant;
      }),
    { validator: (_request) => validate('updateCoApplicant') },
  );

  setHandler(
    cancelUpdate,
    ({ by, reasonId, comments }) => {
      move(allowed('cancel'));
      return record({ by, reasonId, comments });
    },
    {
      validator: (_request) => {
        allowed('cancel');
        refuseWhilePayoutOpen('cancel');
      },
    },
  );

  // --- the offer, the approval and the disbursement ---------------------------------------------------

  const offerOf = (offerId: string | undefined) =>
    offerId === undefined ? loan.offers[0] : loan.offers.find((offer) => offer.offerId === offerId);
  setHandler(
    acceptOfferUpdate,
    ({ by, offerId }) => {
      const offer = offerOf(offerId)!;
      move(allowed('acceptOffer'));
      Object.assign(loan, { acceptedOfferId: offer.offerId, amount: offer.amount, term: offer.term });
      return record({ by, comments: `offer ${offer.offerId} accepted` });
    },
    {
      validator: ({ offerId }) => {
        allowed('acceptOffer');
        if (!offerOf(offerId)) refuse(LoanRefusal.offerNotFound, `the loan has no offer ${offerId}`);
      },
    },
  );

  setHandler(
    declineOfferUpdate,
    ({ by }) => {
      move(allowed('declineOffer'));
      return record({ by });
    },
    { validator: (_request) => void allowed('declineOffer') },
  );

  setHandler(
    approveUpdate,
    ({ by, comments, documentsSigned }) => {
      const step = allowed('approve', { documentsSigned });
      // A referred loan approved by a person gets the offer the bureau would have made.
      if (step.next === 'Offer confirmation')
        loan.offers = offersOf(input.loanId, appliedTerms(), loan.multipleOffers);
      move(step);
      return record({ by, comments });
    },
    { validator: ({ documentsSigned }) => void allowed('approve', { documentsSigned }) },
  );

  /** The loan is paid out (Loans/Disbursements, or its cash payout collected): Active with its disbursement. */
  function disburse(step: LoanStep & { allowed: true }, date: string): void {
    move(step);
    // The amount was checked to be the loan amount: recorded in the loan's notation.
    loan.disbursement = { amount: loan.amount, date };
  }

  setHandler(
    registerDisbursementUpdate,
    async ({ by, disbursement }) => {
      disburse(allowed('registerDisbursement', { amountMatches: true }), disbursement.date);
      await startServicing();
      return record({ by, comments: `disbursement of ${loan.amount} on ${disbursement.date}` });
    },
    {
      validator: ({ disbursement }) => {
        allowed('registerDisbursement', { amountMatches: sameAmount(disbursement.amount, loan.amount) });
        refuseWhilePayoutOpen('registerDisbursement');
      },
    },
  );

  // --- disbursement through the collection gateway (decision 0041) ----------------------------------

  /** An IssueDisbursement whose payout is not yet collected, expired or refused. */
  const payoutOpen = () => loan.payout?.state === 'registering' || loan.payout?.state === 'pending';
  function refuseWhilePayoutOpen(operation: LoanOperation): void {
    if (!payoutOpen()) return;
    const message = `${operation} is not allowed: a cash payout of this loan is open at the collection gateway (invoice ${loan.payout?.invoice}) until it is collected or expires`;
    refuse(LoanRefusal.disbursementInProgress, message);
  }
  /** Updates the open payout of `invoice`; false when the payout is another attempt's or no longer open. */
  function settlePayout(invoice: string, change: Partial<LoanPayout>): boolean {
    if (!payoutOpen() || loan.payout?.invoice !== invoice) return false;
    loan.payout = { ...(loan.payout as LoanPayout), ...change };
    return true;
  }

  /** Registers the payout at the gateway (retried until it answers); a refusal leaves the loan Approved. */
  async function registerPayout(payout: LoanPayout, recipient: PayoutRecipient): Promise<void> {
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
      if (
        settlePayout(payout.invoice, { state: 'pending', idn: registered.idn, expTime: registered.expTime })
      )
        await record({
          by: { role: 'system' },
          comments: `cash payout registered at the collection gateway: invoice ${payout.invoice}${registered.idn ? `, IDN ${registered.idn}` : ''}${registered.expTime ? `, collectable until ${registered.expTime} (Europe/Sofia)` : ''}`,
        });
    } catch (error) {
      if (isCancellation(error)) throw error;
      // An ActivityFailure wraps the refusal: its cause says what the gateway answered.
      const refusal = (error as { cause?: Error }).cause ?? (error as Error);
      const reason = refusal.message;
      const step = stepOf('payoutFailed', loan.status, facts());
      if (!settlePayout(payout.invoice, { state: 'failed', reason })) return;
      if (step.allowed) move(step);
      await record({ by: { role: 'system' }, comments: `${reason} (invoice ${payout.invoice})` });
    }
  }

  setHandler(
    issueDisbursementUpdate,
    async ({ by, recipient }) => {
      allowed('issueDisbursement', { amountMatches: true });
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
      await record({
        by,
        comments: `disbursement issued: a cash payout of ${loan.amount} ${loan.currency} through the collection gateway (invoice ${payout.invoice})`,
      });
      // Runs on after this Update answers if the gateway is slow: the loan stays open meanwhile.
      void registerPayout(payout, recipient);
      await condition(
        () => loan.payout?.invoice !== payout.invoice || loan.payout.state !== 'registering',
        '20 seconds',
      );
      if (loan.payout?.invoice === payout.invoice && loan.payout.state === 'failed')
        refuse(LoanRefusal.payoutRefused, loan.payout.reason ?? 'the collection gateway refused the payout');
      return copyOf(loan);
    },
    {
      validator: ({ amount }) => {
        allowed('issueDisbursement', { amountMatches: sameAmount(amount, loan.amount) });
        refuseWhilePayoutOpen('issueDisbursement');
        if (!PAYOUT_CURRENCIES.includes(loan.currency) || !payoutAmount(loan.amount))
          refuse(
            LoanRefusal.payoutRefused,
            `the collection gateway pays out ${PAYOUT_CURRENCIES.join(', ')} amounts of at most 9 digits and 2 decimals, not ${loan.amount} ${loan.currency}`,
          );
      },
    },
  );

  // The gateway's notification of the payout (verified by the receiver). A repeated one, or one of an
  // earlier attempt's INVOICE, finds no open payout of its INVOICE and changes nothing.
  setHandler(payoutNotificationSignal, async ({ invoice, status, payTime }) => {
    if (status === 'PAID') {
      const step = stepOf('payoutCollected', loan.status, facts());
      const date = payDateOf(payTime) ?? new Date().toISOString().slice(0, 10);
      if (!step.allowed || !settlePayout(invoice, { state: 'paid' })) return;
      disburse(step, date);
      await startServicing();
      await record({
        by: { role: 'system' },
        comments: `disbursement of ${loan.amount} ${loan.currency} collected at a cash desk on ${date} (invoice ${invoice})`,
      });
    } else if (status === 'EXPIRED') {
      const step = stepOf('payoutExpired', loan.status, facts());
      const reason = 'the cash payout expired uncollected';
      if (!step.allowed || !settlePayout(invoice, { state: 'expired', reason })) return;
      move(step);
      await record({
        by: { role: 'system' },
        comments: `${reason} (invoice ${invoice}): the disbursement may be issued again`,
      });
    }
  });

  // --- servicing (decision 0043) ---------------------------------------------------------------------

  const servicing = () => loan.servicing as LoanServicing;
  const now = () => new Date().toISOString();

  /** Fixes the schedule from the disbursement date (the activity reads the product) and the position. */
  async function startServicing(): Promise<void> {
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
    assess();
  }

  /** The position now and the status it asks for (the servicing rows); answers the move's comment. */
  function assess(): string | undefined {
    const held = servicing();
    const position = servicingPosition(held.schedule, held.repayments, held.graceMs, now());
    held.position = position;
    const { state } = position;
    let operation: LoanOperation | undefined;
    if (loan.status === 'Repaid') operation = state === 'repaid' ? undefined : 'repaymentCorrected';
    else if (state === 'repaid') operation = 'fullyRepaid';
    else if (state === 'overdue' && loan.status === 'Active') operation = 'instalmentOverdue';
    else if (state === 'current' && loan.status === 'Past Due') operation = 'overduePaid';
    if (!operation) return undefined;
    const step = stepOf(operation, loan.status, facts({ schedule: state }));
    if (!step.allowed || !move(step)) return undefined;
    if (operation === 'instalmentOverdue')
      return `past due since ${position.pastDueSince}: ${position.overdueAmount} ${loan.currency} overdue`;
    if (operation === 'overduePaid') return 'every overdue instalment is paid';
    if (operation === 'fullyRepaid') return 'the whole schedule is repaid';
    return `a corrected repayment leaves ${position.payoffAmount} ${loan.currency} owing`;
  }

  /** Refuses repayments of which one pays more than the loan owes (nothing changes then). */
  function refuseExcess(repayments: LoanRepayment[]): void {
    const held = loan.servicing;
    if (!held) return;
    try {
      servicingPosition(held.schedule, repayments, held.graceMs, now());
    } catch (error) {
      if (error instanceof RepaymentRefused) refuse(LoanRefusal.repaymentExceedsBalance, error.message);
      throw error;
    }
  }
  /** Applies the repayments as they now are: balances and status recomputed, recorded with `comment`. */
  function applyRepayments(repayments: LoanRepayment[], by: LoanActor, comment: string) {
    servicing().repayments = repayments;
    const moved = assess();
    return record({ by, comments: moved ? `${comment}; ${moved}` : comment });
  }
  const repaymentOf = (repaymentId: string) =>
    loan.servicing?.repayments.find((held) => held.repaymentId === repaymentId);
  /** The repayment a repeated request (same reference, or same id) stands for. */
  const replayOf = ({ repaymentId, reference }: RepaymentRequest) =>
    loan.servicing?.repayments.find(
      (held) => held.repaymentId === repaymentId || (reference !== undefined && held.reference === reference),
    );
  const newRepayment = (request: RepaymentRequest): LoanRepayment => ({
    repaymentId: request.repaymentId,
    amount: request.amount,
    date: request.date,
    mode: request.mode,
    reference: request.reference ?? null,
    reversed: false,
  });
  const describe = (repayment: Pick<LoanRepayment, 'repaymentId' | 'amount' | 'date' | 'mode'>) =>
    `repayment ${repayment.repaymentId} of ${repayment.amount} ${loan.currency} on ${repayment.date} (${repayment.mode})`;

  setHandler(
    registerRepaymentUpdate,
    async ({ by, repayment }) => {
      // A loan paid out a moment ago may still be fetching its schedule.
      await condition(() => loan.servicing != null);
      if (replayOf(repayment)) return copyOf(loan);
      allowed('registerRepayment');
      return applyRepayments([...servicing().repayments, newRepayment(repayment)], by, describe(repayment));
    },
    {
      validator: ({ repayment }) => {
        if (replayOf(repayment)) return;
        allowed('registerRepayment');
        refuseExcess([...(loan.servicing?.repayments ?? []), newRepayment(repayment)]);
      },
    },
  );
  const refuseUnknownRepayment = (repaymentId: string) => {
    const held = repaymentOf(repaymentId);
    if (!held || held.reversed)
      refuse(LoanRefusal.repaymentNotFound, `the loan has no repayment ${repaymentId} in force`);
  };
  const edited = ({ repaymentId, amount, date, mode }: Omit<RepaymentRequest, 'reference'>) =>
    servicing().repayments.map((held) =>
      held.repaymentId === repaymentId ? { ...held, amount, date, mode } : held,
    );
  setHandler(
    editRepaymentUpdate,
    ({ by, repayment }) => {
      allowed('correctRepayment');
      return applyRepayments(edited(repayment), by, `${describe(repayment)}: edited`);
    },
    {
      validator: ({ repayment }) => {
        allowed('correctRepayment');
        refuseUnknownRepayment(repayment.repaymentId);
        refuseExcess(edited(repayment));
      },
    },
  );
  setHandler(
    reverseRepaymentUpdate,
    ({ by, repaymentId }) => {
      const held = repaymentOf(repaymentId);
      // Reversed already: a repeated DELETE changes nothing.
      if (!held || held.reversed) return copyOf(loan);
      allowed('correctRepayment');
      const repayments = servicing().repayments.map((candidate) =>
        candidate.repaymentId === repaymentId ? { ...candidate, reversed: true } : candidate,
      );
      return applyRepayments(repayments, by, `${describe(held)}: reversed`);
    },
    {
      validator: ({ repaymentId }) => {
        allowed('correctRepayment');
        if (!repaymentOf(repaymentId))
          refuse(LoanRefusal.repaymentNotFound, `the loan has no repayment ${repaymentId}`);
      },
    },
  );

  // --- repayments through the collection gateway (decision 0045) -------------------------------------

  const today = () => now().slice(0, 10);
  /** Gateway calls of submissions still running (a hand-over waits for them). */
  let settling = 0;
  const submissionOf = (invoice: string) => loan.submissions?.find((held) => held.invoice === invoice);
  function changeSubmission(invoice: string, change: Partial<RepaymentSubmission>): void {
    loan.submissions = (loan.submissions ?? []).map((held) =>
      held.invoice === invoice ? { ...held, ...change, updatedAt: now() } : held,
    );
  }
  const amountOf = (submission: RepaymentSubmission) =>
    `${submission.amount} ${submission.currency}${submission.channel === 'autocharge' ? ` (auto-charge of instalment ${submission.instalments?.join(', ')})` : ''}`;

  /**
   * Books the money of a submission once (a Regular payment, its INVOICE the reference), at most what the
   * loan owes; answers the history comment, or undefined when it was booked already.
   */
  function book(submission: RepaymentSubmission, payTime: string | null | undefined, how: string) {
    const reference = submission.invoice;
    const repaymentId = repaymentIdOf(submission.submissionId);
    if (replayOf({ repaymentId, reference, amount: submission.amount, date: '', mode: 'Regular payment' })) {
      if (submission.status !== 'paid') changeSubmission(reference, { status: 'paid', repaymentId });
      return undefined;
    }
    const held = servicing();
    const payoff = servicingPosition(held.schedule, held.repayments, held.graceMs, now()).payoffAmount;
    const step = stepOf('submittedRepaymentPaid', loan.status, facts());
    const { booked, excess } = step.allowed
      ? bookableAmount(submission.amount, payoff)
      : { booked: null, excess: submission.amount };
    const beyond = excess
      ? `${excess} ${loan.currency} received beyond what the loan owes (status ${loan.status}): to be refunded`
      : null;
    if (!booked) {
      changeSubmission(reference, { status: 'paid', reason: beyond });
      return `${amountOf(submission)} ${how} (invoice ${reference}); ${beyond}`;
    }
    const date = payDateOf(payTime ?? undefined) ?? today();
    const repayment: LoanRepayment = {
      repaymentId,
      amount: booked,
      // A repayment never precedes the disbursement it repays (servicing allocates by date).
      date: loan.disbursement && date < loan.disbursement.date ? loan.disbursement.date : date,
      mode: 'Regular payment',
      reference,
      reversed: false,
    };
    servicing().repayments = [...held.repayments, repayment];
    const moved = assess();
    changeSubmission(reference, { status: 'paid', repaymentId, reason: beyond });
    return [`${describe(repayment)} ${how} (invoice ${reference})`, beyond, moved].filter(Boolean).join('; ');
  }

  /** Charges the submission's card (the default one when it names none) and books or records the outcome. */
  async function chargeCard(submission: RepaymentSubmission, by: LoanActor): Promise<void> {
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
      if (result.cardId) changeSubmission(invoice, { paymentMethodId: result.cardId, idn: result.idn });
      const held = submissionOf(invoice) as RepaymentSubmission;
      const charged =
        submission.channel === 'autocharge'
          ? `auto-charged for instalment ${submission.instalments?.join(', ')} to ${result.card}`
          : `charged to ${result.card}`;
      if (result.outcome === 'paid') comment = book(held, result.payTime, charged);
      else if (result.outcome === 'declined' && submissionInFlight(held)) {
        changeSubmission(invoice, { status: 'declined', reason: result.reason });
        comment = `${what} of ${amountOf(held)} declined${result.card ? ` (${result.card})` : ''}: ${result.reason} (invoice ${invoice})`;
      }
    } catch (error) {
      if (isCancellation(error)) throw error;
      const reason = ((error as { cause?: Error }).cause ?? (error as Error)).message;
      if (submissionInFlight(submissionOf(invoice) as RepaymentSubmission)) {
        changeSubmission(invoice, { status: 'failed', reason });
        comment = `${what} of ${amountOf(submission)} not charged: ${reason} (invoice ${invoice})`;
      }
    }
    await record(comment ? { by, comments: comment } : undefined);
  }

  /** Registers the deposit slip a bank-transfer submission is paid by. */
  async function registerSlip(submission: RepaymentSubmission, by: LoanActor): Promise<void> {
    const { invoice } = submission;
    let comment: string;
    try {
      const slip = await registerRepaymentSlip({
        tenantId: input.tenantId,
        loanId: input.loanId,
        invoice,
        amount: submission.amount,
        currency: submission.currency,
      });
      if (!submissionInFlight(submissionOf(invoice) as RepaymentSubmission)) return;
      changeSubmission(invoice, { status: 'pending', ...slip });
      comment = `repayment of ${amountOf(submission)} by bank transfer: deposit slip IDN ${slip.idn} registered (invoice ${invoice}${slip.expiresAt ? `, payable until ${slip.expiresAt}` : ''})`;
    } catch (error) {
      if (isCancellation(error)) throw error;
      const reason = ((error as { cause?: Error }).cause ?? (error as Error)).message;
      changeSubmission(invoice, { status: 'failed', reason });
      comment = `repayment of ${amountOf(submission)} by bank transfer not registered: ${reason} (invoice ${invoice})`;
    }
    await record({ by, comments: comment });
  }

  /** Asks the gateway for a new submission (in the background of the Update that made it). */
  function settle(submission: RepaymentSubmission, by: LoanActor): Promise<void> {
    settling += 1;
    const asked =
      submission.channel === 'bankTransfer' ? registerSlip(submission, by) : chargeCard(submission, by);
    return asked.finally(() => {
      settling -= 1;
    });
  }

  const newSubmission = (
    request: Pick<SubmissionRequest, 'submissionId' | 'amount' | 'paymentMethodId'>,
    channel: RepaymentSubmission['channel'],
  ): RepaymentSubmission => ({
    submissionId: request.submissionId,
    invoice: submissionInvoice(request.submissionId),
    channel,
    amount: request.amount,
    currency: loan.currency,
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
  const submissionWithId = (submissionId: string) =>
    loan.submissions?.find((held) => held.submissionId === submissionId);
  /** A submission pays at most what the loan owes (as a Regular payment today). */
  const refuseSubmission = ({ submissionId, amount }: SubmissionRequest) => {
    allowed('submitRepayment');
    refuseExcess([
      ...(loan.servicing?.repayments ?? []),
      { ...newRepayment({ repaymentId: submissionId, amount, date: today(), mode: 'Regular payment' }) },
    ]);
  };

  setHandler(
    submitRepaymentUpdate,
    async ({ by, submission: request }) => {
      await condition(() => loan.servicing != null);
      // A retried Update: the submission it made.
      if (submissionWithId(request.submissionId)) return copyOf(loan);
      refuseSubmission(request);
      const submission = newSubmission(request, request.mode);
      loan.submissions = [...(loan.submissions ?? []), submission];
      // On record before the gateway is asked: its notification finds the loan by the INVOICE.
      await record();
      // Answers once the gateway's answer is on record, or after 20 s while the call goes on.
      let settled = false;
      void settle(submission, by).then(() => {
        settled = true;
      });
      await condition(() => settled, '20 seconds');
      return copyOf(loan);
    },
    {
      validator: ({ submission }) => {
        if (!submissionWithId(submission.submissionId)) refuseSubmission(submission);
      },
    },
  );

  // The gateway's notification of a submission's INVOICE (verified by the receiver): PAID books it once,
  // whoever comes first (the charge's answer or the notification); DENIED and EXPIRED close it.
  setHandler(repaymentNotificationSignal, async ({ invoice, status, payTime }) => {
    const held = submissionOf(invoice);
    if (!held || !loan.servicing) return;
    let comment: string | undefined;
    if (status === 'PAID') {
      comment = book(
        held,
        payTime,
        held.channel === 'bankTransfer'
          ? `received by bank transfer (IDN ${held.idn})`
          : 'charged to the card',
      );
    } else if ((status === 'DENIED' || status === 'EXPIRED') && submissionOpen(held)) {
      const reason =
        status === 'EXPIRED'
          ? 'the deposit slip expired unpaid'
          : 'the collection gateway denied the payment';
      changeSubmission(invoice, { status: status === 'EXPIRED' ? 'expired' : 'declined', reason });
      comment = `repayment of ${amountOf(held)}: ${reason} (invoice ${invoice})`;
    }
    if (comment) await record({ by: { role: 'system' }, comments: comment });
  });

  // --- auto-charge on due dates (decision 0045) --------------------------------------------------------

  const autochargeAtMs = settings.autochargeAtMs ?? 0;
  /** Instalments whose auto-charge moment has passed: enabling auto-charge leaves them alone. */
  const autochargeBaseline = () => {
    const handled = new Set(loan.autochargeHandled ?? []);
    if (loan.servicing)
      for (const number of instalmentsReached(loan.servicing.position, Date.now(), autochargeAtMs))
        handled.add(number);
    return [...handled].sort((a, b) => a - b);
  };
  /**
   * The next moment an instalment's due date asks for an auto-charge; none while auto-charge is off.
   * Loans that ran before auto-charges were built keep their timers until they run on this code.
   */
  function autochargeMoment(): number | null {
    const serviced = loan.status === 'Active' || loan.status === 'Past Due';
    if (!loan.autocharge || !loan.servicing || !serviced || !patched('lending-autocharge')) return null;
    loan.autochargeHandled ??= autochargeBaseline();
    return nextAutochargeMoment(loan.servicing.position, loan.autochargeHandled, autochargeAtMs);
  }

  /** Charges what is due now (overdue included) to the default card, once per instalment; the outcome in the history. */
  async function autocharge(): Promise<void> {
    const held = servicing();
    const position = servicingPosition(held.schedule, held.repayments, held.graceMs, now());
    const instalments = instalmentsToAutocharge(
      position,
      loan.autochargeHandled ?? [],
      Date.now(),
      autochargeAtMs,
    );
    if (instalments.length === 0) return;
    loan.autochargeHandled = [...(loan.autochargeHandled ?? []), ...instalments];
    const amount = payoutAmount(position.dueNow);
    const submission = {
      ...newSubmission(
        {
          submissionId: submissionIdOf(uuid4().replaceAll('-', '').slice(0, 16)),
          amount: position.dueNow,
          paymentMethodId: null,
        },
        'autocharge',
      ),
      instalments,
    };
    if (!amount || !PAYOUT_CURRENCIES.includes(loan.currency)) {
      const reason = `the collection gateway charges ${PAYOUT_CURRENCIES.join(', ')} amounts only`;
      loan.submissions = [...(loan.submissions ?? []), { ...submission, status: 'declined', reason }];
      await record({
        by: { role: 'system' },
        comments: `auto-charge of ${amountOf(submission)} not possible: ${reason}`,
      });
      return;
    }
    loan.submissions = [...(loan.submissions ?? []), { ...submission, amount }];
    await record();
    // In the background: a gateway that does not answer must not hold the loan's due dates back.
    void settle({ ...submission, amount }, { role: 'system' });
  }

  /** Hands the loan over to a new run of this workflow once its history is long (servicing only). */
  const historyLong = () =>
    loan.servicing != null &&
    (workflowInfo().continueAsNewSuggested ||
      workflowInfo().historyLength > (settings.historyLimit ?? 5_000));
  async function handOver(): Promise<never> {
    // Every running Update answers, every Signal is handled and every gateway call of a submission has
    // answered first: none is lost across the hand-over.
    await condition(() => allHandlersFinished() && settling === 0);
    return continueAsNew<typeof lendingLoan>({
      ...input,
      continued: { loan: copyOf(loan), collateralsAdded },
    });
  }

  // --- servicing options ------------------------------------------------------------------------------

  setHandler(
    requestRolloverUpdate,
    ({ by }) => {
      allowed('requestRollover');
      loan.rolloverRequested = true;
      return record({ by, comments: 'rollover requested' });
    },
    { validator: (_request) => void allowed('requestRollover') },
  );
  setHandler(
    cancelRolloverUpdate,
    ({ by }) => {
      allowed('cancelRollover');
      loan.rolloverRequested = false;
      return record({ by, comments: 'rollover request cancelled' });
    },
    { validator: (_request) => void allowed('cancelRollover') },
  );
  setHandler(
    setAutochargeUpdate,
    ({ by, enabled, comment }) => {
      Object.assign(loan, { autocharge: enabled, autochargeComment: comment ?? null });
      // Only due dates reached with auto-charge on are charged: those before are left alone.
      if (enabled) loan.autochargeHandled = autochargeBaseline();
      return record({
        by,
        comments: `auto-charge ${enabled ? 'enabled' : 'disabled'}${comment ? `: ${comment}` : ''}`,
      });
    },
    { validator: ({ enabled }) => void allowed(enabled ? 'enableAutocharge' : 'disableAutocharge') },
  );

  // --- the process ----------------------------------------------------------------------------------

  /** The credit bureau's answer moves the loan by the `decision` rows; an unanswered check refers it. */
  async function decide(request: NonNullable<typeof submitted>): Promise<void> {
    const decision = await askBureau(input, loan, request.applicant);
    const step = stepOf('decision', loan.status, facts({ bureau: decision.outcome }));
    // Cancelled while the bureau was asked: the answer changes nothing.
    if (step.allowed) {
      loan.decision = decision;
      if (decision.outcome === 'approve')
        loan.offers = offersOf(input.loanId, appliedTerms(), loan.multipleOffers);
      move(step);
      await record({ by: { role: 'system' }, comments: decisionComment(decision) });
    }
    deciding = false;
    decisions += 1;
  }

  if (input.continued) {
    // A new run of a loan on record: nothing to record again.
    created = Promise.resolve(copyOf(loan));
  } else {
    // The application (or a loan registered with its disbursement, with its schedule) is on record.
    created = (async () => {
      await startServicing();
      return record({ by: input.createdBy, comments: input.comments });
    })();
    upsertSearchAttributes([{ key: BusinessStatus, value: loan.status }]);
  }
  await created;

  for (;;) {
    if (isClosed(loan.status)) {
      // A loan repaid here still takes corrections of its repayments for the reversal window; one
      // created Repaid (a migrated loan, its only repayment the opening balance) ends at once.
      if (loan.status !== 'Repaid' || !loan.servicing || input.status === 'Repaid') break;
      if (!(await condition(() => loan.status !== 'Repaid', settings.reversalWindowMs))) break;
      continue;
    }
    // Waits for Process, a change, or the next due date (and its grace) of an unpaid instalment; every
    // other operation is an Update handled above.
    const version = loan.version;
    const dueAt = loan.servicing ? nextServicingMoment(loan.servicing) : null;
    const chargeAt = autochargeMoment();
    const wakeAt = chargeAt === null || (dueAt !== null && dueAt < chargeAt) ? dueAt : chargeAt;
    const wait = wakeAt === null ? null : wakeAt - Date.now();
    const woken = () =>
      submitted !== undefined || loan.version !== version || isClosed(loan.status) || historyLong();
    if (wait === null) await condition(woken);
    else if (wait > 0) await condition(woken, wait);
    const request = submitted;
    submitted = undefined;
    if (request) await decide(request);
    if (chargeAt !== null && Date.now() >= chargeAt) await autocharge();
    if (loan.servicing && dueAt !== null && Date.now() >= dueAt) {
      const moved = assess();
      await record(moved ? { by: { role: 'system' }, comments: moved } : undefined);
    }
    if (historyLong()) await handOver();
  }
  await condition(() => allHandlersFinished() && settling === 0);
  return loan.status;
}

/** The decision activity with its retry policy; after the last attempt the loan is referred. */
async function askBureau(
  input: LoanInput,
  loan: LoanSnapshot,
  applicant: BureauApplicant,
): Promise<LoanDecision> {
  const { decideLoan } = proxyActivities<LendingActivities>({
    startToCloseTimeout: input.bureau.requestTimeoutMs + 5_000,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '30 seconds',
      maximumAttempts: input.bureau.attempts,
      nonRetryableErrorTypes: ['BureauRefusal'],
    },
  });
  try {
    return await decideLoan({
      tenantId: input.tenantId,
      loanId: input.loanId,
      applicant,
      terms: {
        productName: loan.productName,
        ...(loan.promoCode ? { promoCode: loan.promoCode } : {}),
        amount: loan.amount,
        term: loan.term,
      },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return {
      outcome: 'unavailable',
      reasons: [`the credit bureau did not decide: ${(error as Error).message}`],
      at: new Date().toISOString(),
    };
  }
}

const decisionComment = (decision: LoanDecision) =>
  `credit bureau: ${decision.outcome}${decision.reasons.length > 0 ? ` (${decision.reasons.join('; ')})` : ''}`;

/** A copy of the loan as it is now (what an Update answers and an activity records). */
const copyOf = (loan: LoanSnapshot): LoanSnapshot => JSON.parse(JSON.stringify(loan)) as LoanSnapshot;
