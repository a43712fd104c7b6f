import { createHash, randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../../db/schema/lending-loans.ts';
import { lendingRepaymentSubmissions } from '../../../db/schema/lending-servicing.ts';
import { minorUnitProblem } from '../../../domain/lending/credit-products.ts';
import { PAYOUT_CURRENCIES, payoutAmount } from '../../../domain/lending/disbursement.ts';
import { type LoanSnapshot, submitRepaymentUpdate } from '../../../domain/lending/loan-process.ts';
import {
  type RepaymentSubmission,
  type SubmissionMode,
  type SubmissionStatus,
  submissionIdOf,
  submissionRepaymentMode,
} from '../../../domain/lending/repayment-submissions.ts';
import type { RepaymentMode } from '../../../domain/lending/servicing.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { requireSameRequest } from '../../shared/idempotency.ts';
import { Refusal } from '../../shared/refusal.ts';
import { listBankAccounts } from '../bank-accounts.ts';
import { cardToCharge } from '../cards.ts';
import { requireCollectMerchant } from '../collect-merchants.ts';
import { type LoanCaller, loanOf, refuseOutsideStatuses } from './record.ts';
import { sendLoanUpdate } from './workflow.ts';

/**
 * Submissions (workflows/lending/loan/submissions.ts, decision 0045): the customer repays through the
 * collection gateway; the gateway's notifications find their submission here.
 */

/** What the customer submits (PaymentOptions/SubmitRepayment). */
export interface SubmissionInput {
  loanId: string;
  amount: string;
  /** The spec's repayment mode: how the money is allocated once booked (default `Regular payment`). */
  mode?: RepaymentMode | undefined;
  /** How the money comes in: a card charge or a deposit slip paid by bank transfer. */
  channel: SubmissionMode;
  /** card: the card to charge (`card_…`); bankTransfer: the customer's bank account paid from (`bac_…`). */
  paymentMethodId?: string | undefined;
  /** The client's idempotency reference: the same one for the loan again answers the first submission. */
  reference?: string | undefined;
}

/** A submission as the API answers it. */
export interface SubmissionView {
  submissionId: string;
  loanId: string;
  mode: RepaymentMode;
  channel: SubmissionMode;
  status: SubmissionStatus;
  amount: string;
  currency: string;
  reference: string | null;
  invoice: string;
  paymentMethodId: string | null;
  iban: string | null;
  beneficiary: string | null;
  expiresAt: string | null;
  reason: string | null;
  repaymentId: string | null;
}

const submissionView = (loanId: string, held: RepaymentSubmission): SubmissionView => ({
  submissionId: held.submissionId,
  loanId,
  mode: submissionRepaymentMode(held),
  channel: held.channel === 'bankTransfer' ? 'bankTransfer' : 'card',
  status: held.status,
  amount: held.amount,
  currency: held.currency,
  reference: held.idn,
  invoice: held.invoice,
  paymentMethodId: held.paymentMethodId,
  iban: held.iban,
  beneficiary: held.beneficiary,
  expiresAt: held.expiresAt,
  reason: held.reason,
  repaymentId: held.repaymentId,
});

/**
 * PaymentOptions/SubmitRepayment: the customer repays through the collection gateway (decision 0045): a
 * charge of a saved card, or a deposit slip paid by bank transfer. An Update of the loan's workflow
 * (Active or Past Due, at most what the loan owes, in principal for an Early repayment); the money is
 * booked in the submission's repayment mode (Regular payment or Early repayment, as Management
 * repayments are) with the submission's INVOICE as its reference, once, whether the charge's answer or the gateway's
 * notification comes first.
 */
export async function submitRepayment(
  deps: Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>,
  { caller, ...body }: SubmissionInput & { caller: LoanCaller & { customerId: string } },
): Promise<SubmissionView> {
  const { db, config } = deps;
  const { customerId } = caller;
  const row = await loanOf(deps, caller, body.loanId);
  refuseOutsideStatuses(row, 'submitRepayment');
  await requireCollectMerchant(db, config, row.tenantId);
  if (!PAYOUT_CURRENCIES.includes(row.currency))
    throw Refusal.conflict(
      'repayment_currency_unsupported',
      `The collection gateway takes ${PAYOUT_CURRENCIES.join(', ')}; the loan is in ${row.currency}`,
    );
  const tooPrecise = minorUnitProblem(body.amount, row.currency);
  if (tooPrecise) throw Refusal.field('amount', tooPrecise);
  const amount = payoutAmount(body.amount);
  if (!amount) throw Refusal.field('amount', 'must have at most 9 integer digits for the collection gateway');
  const owner = { tenantId: row.tenantId, customerId };
  let paymentMethodId: string | null = null;
  if (body.channel === 'card') {
    if (body.paymentMethodId && !body.paymentMethodId.startsWith('card_'))
      throw Refusal.field('paymentMethodId', 'channel card charges a card (card_…)');
    paymentMethodId = await cardToCharge(db, owner, body.paymentMethodId);
  } else if (body.paymentMethodId) {
    if (!body.paymentMethodId.startsWith('bac_'))
      throw Refusal.field('paymentMethodId', 'channel bankTransfer names a bank account (bac_…)');
    const accounts = await listBankAccounts({ db }, { tenantId: row.tenantId, customerId });
    if (!accounts.some((account) => account.profileId === body.paymentMethodId))
      throw Refusal.notFound('Payment method');
    paymentMethodId = body.paymentMethodId;
  }
  // A client reference names one submission of the loan: its id derives from it, so the workflow answers a repeat with the first.
  const hex = body.reference
    ? createHash('sha256')
        .update(`${row.tenantId}\u0000${row.loanId}\u0000${body.reference}`)
        .digest('hex')
        .slice(0, 16)
    : randomBytes(8).toString('hex');
  const repaymentMode = body.mode ?? 'Regular payment';
  const submission = {
    submissionId: submissionIdOf(hex),
    mode: body.channel,
    ...(repaymentMode === 'Regular payment' ? {} : { repaymentMode }),
    amount,
    paymentMethodId,
  };
  let answered: LoanSnapshot | undefined;
  await sendLoanUpdate(deps, row, 'submitRepayment', async (loan) => {
    answered = await loan.executeUpdate(submitRepaymentUpdate, { args: [{ by: caller.actor, submission }] });
    return answered;
  });
  const held = answered?.submissions?.find((candidate) => candidate.submissionId === submission.submissionId);
  if (!held) throw new Error(`loan ${row.loanId}: SubmitRepayment answered without its submission`);
  // A repeated reference answers its first submission only for the same request (422 otherwise).
  const view = submissionView(row.loanId, held);
  requireSameRequest(
    {
      mode: view.mode,
      channel: view.channel,
      amount: new Decimal(view.amount).toString(),
      paymentMethodId: body.paymentMethodId && view.paymentMethodId,
    },
    {
      mode: repaymentMode,
      channel: body.channel,
      amount: new Decimal(amount).toString(),
      paymentMethodId: body.paymentMethodId,
    },
    {
      message: 'This reference was used for a different repayment submission of the loan',
      field: 'reference',
    },
  );
  if (held.status === 'failed')
    throw new Refusal(
      502,
      'collect_gateway_refused',
      `The collection gateway did not take the repayment (submission ${held.submissionId}): ${held.reason}`,
    );
  return view;
}

/** A repayment submission of the tenant (decision 0045), from the read model the loan workflow writes. */
export async function findSubmission(db: Database, tenantId: string, submissionId: string) {
  const [row] = await db
    .select()
    .from(lendingRepaymentSubmissions)
    .where(
      and(
        eq(lendingRepaymentSubmissions.tenantId, tenantId),
        eq(lendingRepaymentSubmissions.submissionId, submissionId),
      ),
    )
    .limit(1);
  return row;
}

type SubmissionRow = NonNullable<Awaited<ReturnType<typeof findSubmission>>>;

/**
 * The gateway's REVERSED of a submission whose loan's workflow has ended (decision 0069: a loan closed,
 * its reversal window passed): no workflow can take the money back any more, so the loan is left as it
 * is and the reversal is put on record for an operator, once: the submission becomes `reversed` with the
 * reason, and the loan's status history gets an entry (its status unchanged) under the next version. The
 * loan's row and its history are the workflow's read model; with the workflow ended, nothing else writes
 * them. Answers the history comment, or undefined when it was on record already.
 */
export async function recordReversalAfterEnd(
  db: Database,
  submission: SubmissionRow,
): Promise<string | undefined> {
  const { tenantId, loanId, submissionId } = submission;
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select()
      .from(lendingRepaymentSubmissions)
      .where(
        and(
          eq(lendingRepaymentSubmissions.tenantId, tenantId),
          eq(lendingRepaymentSubmissions.submissionId, submissionId),
        ),
      )
      .for('update');
    if (!held || held.status === 'reversed') return undefined;
    const [loan] = await tx
      .select({ status: lendingLoans.status, version: lendingLoans.version })
      .from(lendingLoans)
      .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)))
      .for('update');
    if (!loan) return undefined;
    const at = new Date();
    const version = loan.version + 1;
    const idn = held.idn ? `, IDN ${held.idn}` : '';
    const taken =
      held.status === 'paid' && held.repaymentId
        ? `repayment ${held.repaymentId} stays booked (loan ${loan.status}): an operator must settle it`
        : 'nothing of it was booked';
    const comments = `the bank took back the transfer of ${held.amount} ${held.currency} for invoice ${held.invoice}${idn} after the loan's workflow had ended: ${taken}`;
    await tx
      .update(lendingLoans)
      .set({ version, updatedAt: at })
      .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)));
    await tx
      .update(lendingRepaymentSubmissions)
      .set({
        status: 'reversed',
        reason: `the bank took the transfer back after the loan's workflow had ended: ${taken}`,
        version,
        updatedAt: at,
      })
      .where(
        and(
          eq(lendingRepaymentSubmissions.tenantId, tenantId),
          eq(lendingRepaymentSubmissions.submissionId, submissionId),
        ),
      );
    await tx.insert(lendingLoanStatusHistory).values({
      tenantId,
      loanId,
      version,
      status: loan.status,
      at,
      actorRole: 'system',
      comments,
    });
    return comments;
  });
}
