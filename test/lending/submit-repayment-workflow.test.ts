import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CardChargeRequest,
  CardChargeResult,
  SlipRequest,
} from '../../activities/lending/repayments.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import {
  type LoanInput,
  type LoanSnapshot,
  registerDisbursementUpdate,
  repaymentNotificationSignal,
  setAutochargeUpdate,
  submitRepaymentUpdate,
} from '../../domain/lending/loan-process.ts';
import {
  bookableAmount,
  instalmentsReached,
  instalmentsToAutocharge,
  nextAutochargeMoment,
  type SubmissionRequest,
} from '../../domain/lending/repayment-submissions.ts';
import { addDays, type ServicingPosition } from '../../domain/lending/servicing.ts';
import { eventually } from '../support/platform.ts';
import { type Loan, type LoanWorkflowHarness, startLoanWorkflowHarness } from './loan-workflow-harness.ts';
import { startDateForFirstDueDate } from './products-support.ts';
import { pause } from './support.ts';

/**
 * SubmitRepayment and auto-charge in the loan workflow with MOCKED gateway activities (decision 0045): a
 * card charge booked once whoever comes first (its answer or the PAID notification), a decline recorded,
 * a deposit slip booked by its notification once, the refusals, and auto-charge once per instalment.
 */

/** What the mocked gateway answers a charge, by the amount charged (the test decides per loan). */
const chargeAnswers = new Map<string, (request: CardChargeRequest) => Promise<CardChargeResult>>();
const charges: CardChargeRequest[] = [];
const slips: SlipRequest[] = [];

let harness: LoanWorkflowHarness;
beforeAll(async () => {
  harness = await startLoanWorkflowHarness('submit-repayment-workflow', {
    async decideLoan() {
      return { outcome: 'approve', score: 700, reasons: [], at: new Date().toISOString() };
    },
    async registerLoanPayout() {
      return { idn: null, expTime: null, replayed: false };
    },
    async chargeRepaymentCard(request) {
      charges.push(request);
      const answer = chargeAnswers.get(request.amount);
      if (!answer)
        throw ApplicationFailure.nonRetryable(`no answer for ${request.amount}`, 'RepaymentRefused');
      return answer(request);
    },
    async registerRepaymentSlip(request) {
      slips.push(request);
      return {
        idn: '4817302245',
        expiresAt: '2030-01-01T00:00:00.000Z',
        iban: 'BG80BNBG96611020345678',
        beneficiary: 'Collections',
      };
    },
  });
});
afterAll(async () => {
  await harness?.stop();
});

const today = () => new Date().toISOString().slice(0, 10);
const customer = { role: 'customer' as const, id: 'usr_1' };
let submissions = 0;
const newSubmissionId = () => `sub_${(++submissions).toString(16).padStart(16, '0')}`;
const paid =
  (card = 'VISA •••• 4242'): ((request: CardChargeRequest) => Promise<CardChargeResult>) =>
  async () => ({ outcome: 'paid', cardId: 'card_0000000000000001', card, idn: '1234567890', payTime: null });

const submit = (loan: Loan, request: Partial<SubmissionRequest> & { amount: string }) =>
  loan.executeUpdate(submitRepaymentUpdate, {
    args: [
      {
        by: customer,
        submission: {
          submissionId: newSubmissionId(),
          mode: 'card',
          paymentMethodId: 'card_0000000000000001',
          ...request,
        },
      },
    ],
  });
const submissionOf = (snapshot: LoanSnapshot, submissionId: string) =>
  snapshot.submissions?.find((held) => held.submissionId === submissionId);
const lastRecord = (loanId: string) => harness.records.get(loanId)?.at(-1)?.snapshot as LoanSnapshot;
const commentsOf = (loanId: string) =>
  (harness.records.get(loanId) ?? []).map((record) => record.change?.comments ?? '').join('\n');

/** A loan created by management with its disbursement on `date` (1200.00 over 12 months at 12 %). */
const disbursedLoan = (date: string, overrides: Partial<LoanInput> = {}) =>
  harness.startLoan({
    status: 'Active',
    terms: { productName: 'Personal 12', amount: '1200.00', term: 12 },
    createdBy: { role: 'management' },
    disbursement: { amount: '1200.00', date },
    ...overrides,
  });

async function refusal(update: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await update.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return (error as WorkflowUpdateFailedError).cause as ApplicationFailure;
}

describe('SubmitRepayment in the loan workflow', () => {
  it('a card charge paid is booked as a Regular payment with the INVOICE as reference; the notification books nothing again', async () => {
    chargeAnswers.set('31.00', paid());
    const { loan, loanId } = await disbursedLoan(addDays(today(), -10));
    const answer = await submit(loan, { amount: '31.00' });
    const held = answer.submissions?.at(-1);
    expect(held).toMatchObject({ status: 'paid', channel: 'card', invoice: `LR-${held?.submissionId}` });
    expect(answer.servicing?.repayments).toEqual([
      expect.objectContaining({ amount: '31.00', mode: 'Regular payment', reference: held?.invoice }),
    ]);
    expect(held?.repaymentId).toBe(`rpm_${held?.submissionId.slice(4)}`);
    expect(commentsOf(loanId)).toContain('charged to VISA •••• 4242');

    // The gateway's notification of the same INVOICE, twice: nothing booked again, nothing recorded.
    const records = harness.records.get(loanId)?.length;
    await loan.signal(repaymentNotificationSignal, { invoice: held?.invoice ?? '', status: 'PAID' });
    await loan.signal(repaymentNotificationSignal, { invoice: held?.invoice ?? '', status: 'PAID' });
    await pause(500);
    expect(harness.records.get(loanId)?.length).toBe(records);
    expect(lastRecord(loanId).servicing?.repayments).toHaveLength(1);

    // A retried Update (the same submission id) answers the same submission and charges nothing.
    const before = charges.length;
    const again = await loan.executeUpdate(submitRepaymentUpdate, {
      args: [
        {
          by: customer,
          submission: {
            submissionId: held?.submissionId ?? '',
            mode: 'card',
            amount: '31.00',
            paymentMethodId: null,
          },
        },
      ],
    });
    expect(again.submissions).toHaveLength(1);
    expect(charges.length).toBe(before);
  });

  it('the PAID notification arriving before the charge answers books it once', async () => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    chargeAnswers.set('32.00', async (request) => {
      await answered;
      return paid()(request);
    });
    const { loan, loanId } = await disbursedLoan(addDays(today(), -10));
    const pending = submit(loan, { amount: '32.00' });
    const held = await eventually(async () => lastRecord(loanId).submissions?.at(-1));
    expect(held.status).toBe('charging');
    await loan.signal(repaymentNotificationSignal, {
      invoice: held.invoice,
      status: 'PAID',
      payTime: '20260115103000',
    });
    await eventually(async () => (lastRecord(loanId).servicing?.repayments.length === 1 ? true : undefined));
    release();
    const answer = await pending;
    expect(submissionOf(answer, held.submissionId)?.status).toBe('paid');
    expect(answer.servicing?.repayments).toHaveLength(1);
    expect(answer.servicing?.repayments[0]?.reference).toBe(held.invoice);
  });

  it('a declined card books nothing and is in the history', async () => {
    chargeAnswers.set('33.00', async () => ({
      outcome: 'declined',
      cardId: 'card_0000000000000001',
      card: 'VISA •••• 0341',
      idn: '1234567891',
      reason: 'the issuer declined the payment',
    }));
    const { loan, loanId } = await disbursedLoan(addDays(today(), -10));
    const answer = await submit(loan, { amount: '33.00' });
    expect(answer.submissions?.at(-1)).toMatchObject({
      status: 'declined',
      reason: 'the issuer declined the payment',
    });
    expect(answer.servicing?.repayments).toEqual([]);
    expect(commentsOf(loanId)).toContain('card repayment of 33.00 EUR declined (VISA •••• 0341)');
  });

  it('a bank transfer: a deposit slip pending; its PAID notification books it once; EXPIRED closes another', async () => {
    const { loan, loanId } = await disbursedLoan(addDays(today(), -40));
    expect(loan).toBeDefined();
    const answer = await submit(loan, { amount: '40.00', mode: 'bankTransfer', paymentMethodId: null });
    const held = answer.submissions?.at(-1);
    expect(held).toMatchObject({ status: 'pending', idn: '4817302245', iban: 'BG80BNBG96611020345678' });
    expect(slips.at(-1)).toMatchObject({ invoice: held?.invoice, amount: '40.00', currency: 'EUR' });
    expect(answer.servicing?.repayments).toEqual([]);

    for (let delivery = 0; delivery < 2; delivery++)
      await loan.signal(repaymentNotificationSignal, {
        invoice: held?.invoice ?? '',
        status: 'PAID',
        payTime: `${today().replaceAll('-', '')}120000`,
      });
    await eventually(async () => (lastRecord(loanId).servicing?.repayments.length === 1 ? true : undefined));
    await pause(500);
    const booked = lastRecord(loanId);
    expect(booked.servicing?.repayments).toEqual([
      expect.objectContaining({ amount: '40.00', reference: held?.invoice, date: today() }),
    ]);
    expect(submissionOf(booked, held?.submissionId ?? '')?.status).toBe('paid');
    expect(commentsOf(loanId)).toContain('received by bank transfer (IDN 4817302245)');

    const other = (
      await submit(loan, { amount: '5.00', mode: 'bankTransfer', paymentMethodId: null })
    ).submissions?.at(-1);
    await loan.signal(repaymentNotificationSignal, { invoice: other?.invoice ?? '', status: 'EXPIRED' });
    await eventually(async () =>
      submissionOf(lastRecord(loanId), other?.submissionId ?? '')?.status === 'expired' ? true : undefined,
    );
    expect(lastRecord(loanId).servicing?.repayments).toHaveLength(1);
  });

  it('money beyond what the loan owes is booked up to it; the rest is recorded to be refunded', async () => {
    chargeAnswers.set('20.00', paid());
    const { loan, loanId, first } = await disbursedLoan(addDays(today(), -10));
    const payoff = first.servicing?.position.payoffAmount as string;
    const slip = (
      await submit(loan, { amount: payoff, mode: 'bankTransfer', paymentMethodId: null })
    ).submissions?.at(-1);
    expect((await submit(loan, { amount: '20.00' })).submissions?.at(-1)?.status).toBe('paid');
    await loan.signal(repaymentNotificationSignal, { invoice: slip?.invoice ?? '', status: 'PAID' });
    await eventually(async () => (lastRecord(loanId).status === 'Repaid' ? true : undefined));
    const repayments = lastRecord(loanId).servicing?.repayments.map((held) => held.amount);
    expect(repayments).toEqual(['20.00', (Number(payoff) - 20).toFixed(2)]);
    expect(commentsOf(loanId)).toContain('20.00 EUR received beyond what the loan owes');
    expect(submissionOf(lastRecord(loanId), slip?.submissionId ?? '')?.reason).toContain('to be refunded');
  });

  it('a pending bank transfer crosses continue-as-new and is booked by its notification in the new run', async () => {
    chargeAnswers.set('1.00', paid());
    const { loan, loanId } = await disbursedLoan(addDays(today(), -10), {
      servicing: { graceMs: 0, reversalWindowMs: 60_000, historyLimit: 40 },
    });
    const firstRun = (await loan.describe()).runId;
    const slip = (
      await submit(loan, { amount: '7.00', mode: 'bankTransfer', paymentMethodId: null })
    ).submissions?.at(-1);
    for (let round = 0; round < 8 && (await loan.describe()).runId === firstRun; round++)
      await submit(loan, { amount: '1.00' });
    await eventually(
      async () => ((await loan.describe()).runId !== firstRun ? true : undefined),
      15_000,
      'a new run',
    );
    await loan.signal(repaymentNotificationSignal, { invoice: slip?.invoice ?? '', status: 'PAID' });
    await eventually(async () =>
      lastRecord(loanId).servicing?.repayments.some((held) => held.reference === slip?.invoice)
        ? true
        : undefined,
    );
    expect(submissionOf(lastRecord(loanId), slip?.submissionId ?? '')?.status).toBe('paid');
  });

  it('refusals: more than the loan owes, a loan not paid out; nothing is charged', async () => {
    const before = charges.length;
    const { loan, first } = await disbursedLoan(addDays(today(), -10));
    const payoff = first.servicing?.position.payoffAmount as string;
    const tooMuch = await refusal(submit(loan, { amount: (Number(payoff) + 1).toFixed(2) }));
    expect(tooMuch.type).toBe(LoanRefusal.repaymentExceedsBalance);
    const { loan: application } = await harness.startLoan();
    const notServiced = await refusal(submit(application, { amount: '10.00' }));
    expect(notServiced.type).toBe(LoanRefusal.invalidStatus);
    expect(notServiced.message).toContain('status Origination');
    expect(charges.length).toBe(before);
  });
});

describe('auto-charge on due dates', () => {
  /** A disbursement date whose first instalment falls due today. */
  const startDueToday = () => startDateForFirstDueDate(today(), { amount: '1200.00', term: 12 });

  it('charges the amount due at the instalment’s charge moment, once, with the outcome in the history', async () => {
    // The charge moment (00:00 UTC of the due date + LENDING_AUTOCHARGE_TIME) placed 3 seconds ahead.
    const autochargeAtMs = Date.now() - Date.parse(`${today()}T00:00:00Z`) + 3_000;
    const { loan, loanId, first } = await harness.startLoan({
      status: 'Approved',
      terms: { productName: 'Personal 12', amount: '1200.00', term: 12 },
      servicing: { graceMs: 0, reversalWindowMs: 60_000, autochargeAtMs },
    });
    expect(first.status).toBe('Approved');
    await loan.executeUpdate(setAutochargeUpdate, { args: [{ by: { role: 'management' }, enabled: true }] });
    const active = await loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by: { role: 'management' }, disbursement: { amount: '1200.00', date: startDueToday() } }],
    });
    const due = active.servicing?.schedule[0]?.total as string;
    chargeAnswers.set(due, paid('MASTERCARD •••• 4444'));
    const before = charges.length;
    expect(active.submissions ?? []).toEqual([]);

    const charged = await eventually(
      async () => (lastRecord(loanId).servicing?.repayments.length === 1 ? lastRecord(loanId) : undefined),
      15_000,
      'the auto-charge',
    );
    expect(charges.slice(before)).toEqual([
      expect.objectContaining({ cardId: null, amount: due, customerId: 'cus_1', loanId }),
    ]);
    expect(charged.submissions?.at(-1)).toMatchObject({
      channel: 'autocharge',
      status: 'paid',
      instalments: [1],
    });
    expect(charged.autochargeHandled).toEqual([1]);
    expect(charged.status).toBe('Active');
    expect(commentsOf(loanId)).toContain('auto-charged for instalment 1 to MASTERCARD •••• 4444');
    // Once per instalment: nothing more is charged for it.
    await pause(1_500);
    expect(charges.length).toBe(before + 1);
  });

  it('no card (a decline) is recorded in the history; enabling after the moment charges nothing for it', async () => {
    const autochargeAtMs = Date.now() - Date.parse(`${today()}T00:00:00Z`) + 2_000;
    const { loan, loanId } = await harness.startLoan({
      status: 'Approved',
      terms: { productName: 'Personal 12', amount: '1200.00', term: 12 },
      servicing: { graceMs: 0, reversalWindowMs: 60_000, autochargeAtMs },
    });
    await loan.executeUpdate(setAutochargeUpdate, { args: [{ by: { role: 'management' }, enabled: true }] });
    const active = await loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by: { role: 'management' }, disbursement: { amount: '1200.00', date: startDueToday() } }],
    });
    chargeAnswers.set(active.servicing?.schedule[0]?.total as string, async () => ({
      outcome: 'declined',
      cardId: null,
      card: null,
      idn: null,
      reason: 'the customer has no active card',
    }));
    await eventually(
      async () => (commentsOf(loanId).includes('auto-charge of') ? true : undefined),
      15_000,
      'the auto-charge',
    );
    expect(commentsOf(loanId)).toContain('declined: the customer has no active card');
    expect(lastRecord(loanId).servicing?.repayments).toEqual([]);

    // A loan whose moment passed before auto-charge was enabled: nothing is charged for that instalment.
    const before = charges.length;
    const { loan: late } = await disbursedLoan(startDueToday());
    await late.executeUpdate(setAutochargeUpdate, { args: [{ by: { role: 'management' }, enabled: true }] });
    await pause(1_500);
    expect(charges.length).toBe(before);
  });
});

describe('the pure rules', () => {
  it('bookable amounts: up to what is owed, the rest beyond', () => {
    expect(bookableAmount('50.00', '120.00')).toEqual({ booked: '50.00', excess: null });
    expect(bookableAmount('150.00', '120.00')).toEqual({ booked: '120.00', excess: '30.00' });
    expect(bookableAmount('10.00', '0.00')).toEqual({ booked: null, excess: '10.00' });
  });

  it('auto-charge moments: the oldest unpaid instalment not handled; those reached are handled by enabling', () => {
    const row = (number: number, dueDate: string, outstanding: string) => ({
      number,
      dueDate,
      total: '100.00',
      paid: '0.00',
      outstanding,
      overdue: false,
    });
    const position = {
      instalments: [
        row(1, '2026-01-10', '0.00'),
        row(2, '2026-02-10', '100.00'),
        row(3, '2026-03-10', '100.00'),
      ],
    } as unknown as ServicingPosition;
    const hour = 3_600_000;
    expect(nextAutochargeMoment(position, [], hour)).toBe(Date.parse('2026-02-10T01:00:00Z'));
    expect(nextAutochargeMoment(position, [2], 0)).toBe(Date.parse('2026-03-10T00:00:00Z'));
    const atNoon = Date.parse('2026-02-10T12:00:00Z');
    expect(instalmentsToAutocharge(position, [], atNoon, hour)).toEqual([2]);
    expect(instalmentsToAutocharge(position, [2], atNoon, hour)).toEqual([]);
    expect(instalmentsToAutocharge(position, [], Date.parse('2026-02-10T00:30:00Z'), hour)).toEqual([]);
    expect(instalmentsReached(position, atNoon, hour)).toEqual([1, 2]);
  });
});
