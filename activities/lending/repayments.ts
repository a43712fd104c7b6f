import { ApplicationFailure } from '@temporalio/activity';
import { lt, sql } from 'drizzle-orm';
import {
  chargeSavedCard,
  collectGatewayUrl,
  GatewayRefused,
  type MerchantCredentials,
  type MerchantPayment,
  registerDepositSlip,
} from '../../connectors/lending/collect-gateway.ts';
import { chargeableCard } from '../../credentials/lending/cards.ts';
import { loadCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import type { Database } from '../../db/client.ts';
import { lendingRepaymentSubmissions } from '../../db/schema/lending-servicing.ts';
import { LendingActivityFailure } from '../../domain/lending/activity-failures.ts';
import type { LoanSnapshot } from '../../domain/lending/loan-process.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Repayments through the collection gateway (decision 0045), with the tenant's merchant credentials:
 * a saved card charged (the customer's SubmitRepayment, or the loan's auto-charge on a due date) and a
 * deposit slip registered for a bank transfer. The INVOICE is the submission's, so a retry (a timeout, a
 * crashed worker) sends the same packet and the gateway answers the first result: charged once.
 */

/** Failure type of a payment the gateway refuses (or cannot be asked for): not retried. */
export const REPAYMENT_REFUSED = LendingActivityFailure.repaymentRefused;

export interface CardChargeRequest {
  tenantId: string;
  customerId: string;
  loanId: string;
  /** The card to charge; null: the customer's default card (auto-charge). */
  cardId: string | null;
  invoice: string;
  amount: string;
  currency: string;
}

export type CardChargeResult =
  | { outcome: 'paid'; cardId: string; card: string; idn: string | null; payTime: string | null }
  | { outcome: 'declined'; cardId: string | null; card: string | null; idn: string | null; reason: string }
  /** Charged before under this INVOICE with another packet (another default card): the notification tells. */
  | { outcome: 'pending'; cardId: string; card: string; idn: null };

export interface SlipRequest {
  tenantId: string;
  loanId: string;
  invoice: string;
  amount: string;
  currency: string;
}

export interface SlipRegistered {
  idn: string;
  expiresAt: string | null;
  iban: string | null;
  beneficiary: string | null;
}

/** The tenant's merchant at the gateway, or a refusal naming the configuration that is missing. */
async function merchantOf({ db, config }: ActivityDeps, tenantId: string) {
  const merchant = await loadCollectMerchant(db, config, tenantId);
  if (!merchant)
    throw ApplicationFailure.nonRetryable(
      'the tenant is not configured as a merchant of the collection gateway (lending:collect-merchant)',
      REPAYMENT_REFUSED,
    );
  return merchant;
}

/** What the gateway collects for a repayment (card or slip): the submission's INVOICE, the tenant's merchant. */
const repaymentPayment = (merchant: MerchantCredentials, request: SlipRequest): MerchantPayment => ({
  min: merchant.min,
  secret: merchant.secret,
  invoice: request.invoice,
  amount: request.amount,
  currency: request.currency,
  description: `Repayment of loan ${request.loanId}`,
});

const refusalOf = (error: unknown): never => {
  if (error instanceof GatewayRefused)
    throw ApplicationFailure.nonRetryable(error.message, REPAYMENT_REFUSED, {
      code: error.code,
      field: error.field,
    });
  throw error;
};

export function createRepaymentActivities(deps: ActivityDeps) {
  const { db, config } = deps;
  return {
    /**
     * Charges the card (or the customer's default card) through the gateway: paid, or declined (also when
     * no card can be charged, or the gateway refuses the card: nothing was charged). An unavailable
     * gateway fails the attempt, and the workflow's policy retries it.
     */
    async chargeRepaymentCard(request: CardChargeRequest): Promise<CardChargeResult> {
      const merchant = await merchantOf(deps, request.tenantId);
      const card = await chargeableCard(db, config, request.tenantId, request.customerId, request.cardId);
      if (!card)
        return {
          outcome: 'declined',
          cardId: request.cardId,
          card: null,
          idn: null,
          reason: request.cardId
            ? `the card ${request.cardId} is not an active card of the customer`
            : 'the customer has no active card',
        };
      const label = `${card.brand ?? 'card'} •••• ${card.last4 ?? '????'}`;
      try {
        const answer = await chargeSavedCard(
          collectGatewayUrl(config),
          { ...repaymentPayment(merchant, request), cardToken: card.token },
          config.LENDING_COLLECT_REQUEST_TIMEOUT,
        );
        if (answer.outcome === 'paid')
          return {
            outcome: 'paid',
            cardId: card.cardId,
            card: label,
            idn: answer.idn,
            payTime: answer.payTime,
          };
        if (answer.outcome === 'denied')
          return {
            outcome: 'declined',
            cardId: card.cardId,
            card: label,
            idn: answer.idn,
            reason: answer.reason,
          };
        return { outcome: 'pending', cardId: card.cardId, card: label, idn: null };
      } catch (error) {
        // A card the gateway does not know (forgotten) is a decline: nothing was charged.
        if (error instanceof GatewayRefused)
          return { outcome: 'declined', cardId: card.cardId, card: label, idn: null, reason: error.message };
        throw error;
      }
    },

    /** Registers the deposit slip a bank transfer pays (retried until the gateway answers; a refusal is final). */
    async registerRepaymentSlip(request: SlipRequest): Promise<SlipRegistered> {
      const merchant = await merchantOf(deps, request.tenantId);
      try {
        const slip = await registerDepositSlip(
          collectGatewayUrl(config),
          repaymentPayment(merchant, request),
          config.LENDING_COLLECT_REQUEST_TIMEOUT,
        );
        return { idn: slip.idn, expiresAt: slip.expiresAt, iban: slip.iban, beneficiary: slip.beneficiary };
      } catch (error) {
        return refusalOf(error);
      }
    },
  };
}

/** Writes the loan's submissions (in recordLoan's transaction), keeping the newest version of each. */
export async function recordSubmissions(
  tx: Pick<Database, 'insert'>,
  snapshot: LoanSnapshot,
  when: Date,
): Promise<void> {
  for (const submission of snapshot.submissions ?? []) {
    const row = {
      tenantId: snapshot.tenantId,
      submissionId: submission.submissionId,
      loanId: snapshot.loanId,
      invoice: submission.invoice,
      channel: submission.channel,
      amount: submission.amount,
      currency: submission.currency,
      status: submission.status,
      paymentMethodId: submission.paymentMethodId,
      idn: submission.idn,
      iban: submission.iban,
      beneficiary: submission.beneficiary,
      expiresAt: submission.expiresAt ? new Date(submission.expiresAt) : null,
      reason: submission.reason,
      repaymentId: submission.repaymentId,
      version: snapshot.version,
      createdAt: new Date(submission.createdAt),
      updatedAt: when,
    };
    await tx
      .insert(lendingRepaymentSubmissions)
      .values(row)
      .onConflictDoUpdate({
        target: [lendingRepaymentSubmissions.tenantId, lendingRepaymentSubmissions.submissionId],
        set: row,
        setWhere: lt(lendingRepaymentSubmissions.version, sql`excluded.version`),
      });
  }
}
