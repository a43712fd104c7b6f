import { ApplicationFailure, log, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import {
  type LoanFacts,
  type LoanOperation,
  LoanRefusal,
  type LoanStep,
  statusAfter,
  stepOf,
} from '../../../domain/lending/loan-lifecycle.ts';
import {
  type BureauApplicant,
  defaultServicingSettings,
  type LoanActor,
  type LoanInput,
  type LoanServicingSettings,
  type LoanSnapshot,
  type LoanStatusChange,
} from '../../../domain/lending/loan-process.ts';
import type { LoanServicing } from '../../../domain/lending/servicing.ts';
import { dataRefusalOf } from '../../../domain/permanent-failures.ts';
import { BusinessStatus } from '../../../domain/search-attributes.ts';
import { recordLoan } from './activities.ts';
import { LoanEvents } from './events.ts';

export const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, type);
};

/** A step the table allows. */
export type AllowedStep = Extract<LoanStep, { allowed: true }>;

/** What Process hands to the main loop: the bureau is asked there. */
export interface ProcessRequest {
  applicant: BureauApplicant;
  by: LoanActor;
  comments?: string | undefined;
}

/** A copy of the loan as it is now (what an Update answers and an activity records). */
export const copyOf = (loan: LoanSnapshot): LoanSnapshot => JSON.parse(JSON.stringify(loan)) as LoanSnapshot;

/**
 * One loan's state: the snapshot the read model records and the workflow's own bookkeeping. It moves
 * only by the transition table (domain/lending/loan-lifecycle.ts): `allowed` asks the table, `move`
 * takes the step, `record` puts the loan on record. The phases (application, offer, disbursement,
 * servicing, submissions) are functions over it.
 */
export class LoanState {
  readonly settings: LoanServicingSettings;
  readonly loan: LoanSnapshot;
  /** Collaterals ever added: the next one's id. */
  collateralsAdded: number;
  /** Process asked for the bureau's decision; the main loop asks it. */
  submitted: ProcessRequest | undefined;
  /** The bureau is being asked (from Process until its decision is recorded). */
  deciding = false;
  /** Decisions recorded in this run (Process of old histories waits for the next one). */
  decisions = 0;
  /** Gateway calls of submissions still running (a hand-over waits for them). */
  settling = 0;
  /** The loan's events to its tenant's endpoints (decision 0088). */
  readonly events: LoanEvents;
  /** The first record of the loan (what loanCreated answers). */
  created: Promise<LoanSnapshot> | undefined;
  /** The loan as last recorded: what a change the database refuses is undone to. */
  private recorded: LoanSnapshot | undefined;
  /** The database's last refusal of a change of this loan (also in the workflow's memo). */
  lastRefusal: { at: string; version: number; reason: string } | undefined;

  constructor(readonly input: LoanInput) {
    this.settings = input.servicing ?? defaultServicingSettings;
    this.loan = input.continued?.loan ?? newLoan(input);
    this.collateralsAdded = input.continued?.collateralsAdded ?? 0;
    if (input.continued) this.recorded = copyOf(this.loan);
    this.events = new LoanEvents(this.recorded);
  }

  facts(extra: LoanFacts = {}): LoanFacts {
    const { loan } = this;
    return {
      secured: loan.secured,
      collateralCount: loan.collaterals.length,
      offerAccepted: loan.acceptedOfferId !== null,
      multipleOffers: loan.multipleOffers,
      rolloverRequested: loan.rolloverRequested,
      ...extra,
    };
  }

  /** The table's step of `operation` from the loan's status; refuses with the table's refusal. */
  allowed(operation: LoanOperation, extra?: LoanFacts): AllowedStep {
    const step = stepOf(operation, this.loan.status, this.facts(extra));
    if (!step.allowed) return refuse(step.type, step.message);
    return step;
  }

  /** Moves the loan by a step of the table (before the first await: a second Update sees the new status). */
  move(step: AllowedStep): boolean {
    const next = statusAfter(this.loan.status, step.next);
    if (next === this.loan.status) return false;
    this.loan.status = next;
    upsertSearchAttributes([{ key: BusinessStatus, value: next }]);
    return true;
  }

  /**
   * Records the loan as it now is (and its status change, if any); answers what was recorded. A change
   * the database refuses for good (`DataRefused`, issue 20) is undone: the loan goes back to what was
   * last recorded, the refusal is kept with its reason (`lastRefusal`, the memo, the log), and the
   * operation fails with `data_refused` (the API's 422); the loan takes its next operation.
   */
  async record(change?: Omit<LoanStatusChange, 'at' | 'status'>): Promise<LoanSnapshot> {
    this.loan.version += 1;
    const snapshot = copyOf(this.loan);
    const at = new Date().toISOString();
    const events = this.events.changes(snapshot, at);
    try {
      await recordLoan({
        snapshot,
        at,
        ...(change ? { change: { ...change, status: snapshot.status, at } } : {}),
      });
    } catch (error) {
      const reason = dataRefusalOf(error);
      if (reason === undefined) throw error;
      this.events.undone(this.recorded);
      return this.undo(snapshot.version, reason);
    }
    if (!this.recorded || this.recorded.version < snapshot.version) this.recorded = snapshot;
    this.events.send(events);
    return snapshot;
  }

  /** Undoes the changes since the last record and fails the operation with the database's refusal. */
  private undo(version: number, reason: string): never {
    const { loan } = this;
    const before = this.recorded ? copyOf(this.recorded) : undefined;
    if (before) {
      for (const key of Object.keys(loan) as (keyof LoanSnapshot)[]) if (!(key in before)) delete loan[key];
      Object.assign(loan, before);
      upsertSearchAttributes([{ key: BusinessStatus, value: loan.status }]);
    }
    this.lastRefusal = { at: now(), version, reason };
    upsertMemo({ lastRefusal: this.lastRefusal });
    log.warn('the database refused a change of the loan: undone', { loanId: loan.loanId, version, reason });
    return refuse(LoanRefusal.dataRefused, reason);
  }

  copy(): LoanSnapshot {
    return copyOf(this.loan);
  }

  appliedTerms() {
    const { productName, amount, term } = this.loan;
    return { productName, amount, term };
  }

  refuseWhileDeciding(): void {
    if (this.deciding) refuse(LoanRefusal.decisionInProgress, 'the credit bureau is deciding this loan');
  }

  /** An IssueDisbursement whose payout is not yet collected, expired or refused. */
  payoutOpen(): boolean {
    const state = this.loan.payout?.state;
    return state === 'registering' || state === 'pending';
  }

  refuseWhilePayoutOpen(operation: LoanOperation): void {
    if (!this.payoutOpen()) return;
    const message = `${operation} is not allowed: a cash payout of this loan is open at the collection gateway (invoice ${this.loan.payout?.invoice}) until it is collected or expires`;
    refuse(LoanRefusal.disbursementInProgress, message);
  }

  /** The loan's servicing (from its disbursement on). */
  get servicing(): LoanServicing {
    return this.loan.servicing as LoanServicing;
  }
}

export const now = () => new Date().toISOString();
export const today = () => now().slice(0, 10);

/** A new application as its input describes it. */
const newLoan = (input: LoanInput): LoanSnapshot => ({
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
});
