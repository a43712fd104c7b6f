import { ApplicationFailure } from '@temporalio/activity';
import {
  collectGatewayUrl,
  GatewayRefused,
  registerCashPayout,
} from '../../connectors/lending/collect-gateway.ts';
import { loadCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import { LendingActivityFailure } from '../../domain/lending/activity-failures.ts';
import type { PayoutRecipient } from '../../domain/lending/disbursement.ts';
import type { ActivityDeps } from '../shared/deps.ts';

export interface PayoutRegistration {
  tenantId: string;
  loanId: string;
  invoice: string;
  amount: string;
  currency: string;
  recipient: PayoutRecipient;
}

export interface PayoutRegistered {
  idn: string | null;
  expTime: string | null;
  replayed: boolean;
}

/** Failure type of a payout the gateway (or the missing merchant configuration) refuses: not retried. */
export const PAYOUT_REFUSED = LendingActivityFailure.payoutRefused;

/**
 * The loan's disbursement as a cash payout at the collection gateway (decision 0041), registered
 * through its public merchant interface with the tenant's merchant credentials. The INVOICE is the
 * loan's and the attempt's, so a retry of this activity (a timeout, a crashed worker) is answered with
 * the payout registered first, never a second one. A refusal (no merchant configured, a field the
 * gateway refuses) fails at once; an unreachable gateway is retried by the workflow's policy.
 */
export function createDisbursementActivities({ db, config }: ActivityDeps) {
  return {
    async registerLoanPayout(request: PayoutRegistration): Promise<PayoutRegistered> {
      const merchant = await loadCollectMerchant(db, config, request.tenantId);
      if (!merchant)
        throw ApplicationFailure.nonRetryable(
          'the tenant is not configured as a merchant of the collection gateway (lending:collect-merchant)',
          PAYOUT_REFUSED,
        );
      try {
        // Read when called: the gateway's address may be configured after the worker started (tests).
        return await registerCashPayout(
          collectGatewayUrl(config),
          {
            min: merchant.min,
            secret: merchant.secret,
            invoice: request.invoice,
            amount: request.amount,
            currency: request.currency,
            recipientName: request.recipient.name,
            recipientId: request.recipient.id,
            description: `Disbursement of loan ${request.loanId}`,
          },
          config.LENDING_COLLECT_REQUEST_TIMEOUT,
        );
      } catch (error) {
        if (error instanceof GatewayRefused)
          throw ApplicationFailure.nonRetryable(error.message, PAYOUT_REFUSED, {
            code: error.code,
            field: error.field,
          });
        throw error;
      }
    },
  };
}
