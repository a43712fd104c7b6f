import { ApplicationFailure } from '@temporalio/common';
import { and, eq, isNull, notInArray } from 'drizzle-orm';
import { type Xs2aBank, xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { signJws, TOKEN_ISSUER } from '../../credentials/openbanking/jws.ts';
import { scaSecretSubject } from '../../credentials/openbanking/sca-secrets.ts';
import { obBanks, obHooks, obUsers } from '../../db/schema/openbanking.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { hookCallFormat } from '../../domain/openbanking/hook-events.ts';
import { type BudgetDetails, budgetRemittance } from '../../domain/openbanking/payment-orders.ts';
import {
  decimalOf,
  FINAL_PAYMENT_STATES,
  type PaymentScaMethod,
  type PaymentState,
  statusOfState,
  type TransactionStatus,
} from '../../domain/openbanking/payments.ts';
import type {
  BankPaymentCancellation,
  BankPaymentStarted,
  PaymentConfirmRequest,
  PaymentSmsRequest,
} from '../../domain/openbanking/processes.ts';
import {
  type PaymentInitiationRequest,
  type PaymentProduct,
  type PsuPresence,
  type ScaApproach,
  type ScaStatus,
  Xs2aErrorType,
} from '../../domain/openbanking/xs2a.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';
import { relayHeldStep } from './sca-secrets.ts';

/**
 * Activities of the payment process (workflows/openbanking/payment.ts): the payment at the bank (XS2A
 * PIS: initiation, authorisation, status), the payment's row in ob_payments, and the signed hook event.
 */

/** The payment event of a hook call (the payload of the signed JWS). */
export interface PaymentFinishedEvent {
  iss: string;
  jti: string;
  iat: number;
  type: 'payment.finished';
  state: string;
  code: string;
  userId: string;
  bankHash: string;
  hookHash: string | null;
  kind: string;
  status: string;
  paymentState: PaymentState;
  bankTransactionStatus: TransactionStatus | null;
  amount: string;
  currency: string;
  creditorIban: string;
  reason: string | null;
}

const SCA_METHOD_OF: Record<ScaApproach, PaymentScaMethod> = {
  REDIRECT: 'REDIRECT',
  EMBEDDED: 'EMBEDDED_SMS_OTP',
  DECOUPLED: 'DECOUPLED',
};

/** EUR goes as a SEPA credit transfer; other currencies as a domestic one. */
export const productOf = (currency: string): PaymentProduct =>
  currency === 'EUR' ? 'sepa-credit-transfers' : 'domestic-credit-transfers';

export function createPaymentActivities(deps: ActivityDeps) {
  const { db, config, logger } = deps;

  async function paymentWithBank(code: string) {
    const [row] = await db
      .select({ payment: obPayments, bank: obBanks })
      .from(obPayments)
      .innerJoin(obBanks, eq(obBanks.bankHash, obPayments.bankHash))
      .where(eq(obPayments.code, code));
    if (!row) throw ApplicationFailure.nonRetryable(`payment ${code} is not recorded`, 'PaymentNotRecorded');
    return row;
  }

  const clientOf = (bank: Xs2aBank) => xs2aClientFor(bank, config, deps.fetch);

  const psuOf = (payment: typeof obPayments.$inferSelect): PsuPresence | undefined =>
    payment.psuIpAddress
      ? {
          ipAddress: payment.psuIpAddress,
          ...(payment.psuUserAgent ? { userAgent: payment.psuUserAgent } : {}),
        }
      : undefined;

  async function requireBankPayment(code: string) {
    const row = await paymentWithBank(code);
    if (!row.payment.bankPaymentId)
      throw ApplicationFailure.nonRetryable(`payment ${code} has no bank payment`, 'PaymentNotRecorded');
    return { ...row, bankPaymentId: row.payment.bankPaymentId, product: productOf(row.payment.currency) };
  }

  return {
    /**
     * POST /v1/payments/{product} at the bank. Idempotent: a retry after the bank answered returns the
     * recorded bank payment. (A retry after an answer that was lost leaves at most an unauthorised RCVD
     * payment at the bank, which moves no money: only the recorded one is ever authorised.)
     */
    async initiateBankPayment(input: {
      code: string;
      confirm: PaymentConfirmRequest;
      redirectUri: string;
      nokRedirectUri: string;
    }): Promise<BankPaymentStarted> {
      const { payment, bank } = await paymentWithBank(input.code);
      if (payment.bankPaymentId && payment.scaMethod)
        return {
          bankPaymentId: payment.bankPaymentId,
          approach: input.confirm.approach,
          scaRedirectUrl: payment.scaRedirectUrl,
          authorisationId: payment.bankAuthorisationId,
        };
      const budget = payment.regulatoryReportType
        ? budgetRemittance(
            {
              ...(payment.budgetDetails ?? {}),
              regulatoryReportType: payment.regulatoryReportType,
              paymentCategory: payment.paymentCategory ?? '',
            } as BudgetDetails,
            payment.remittanceInformation ?? undefined,
          )
        : undefined;
      const request: PaymentInitiationRequest = {
        endToEndIdentification: payment.code.slice(4, 39),
        debtorAccount: { iban: payment.debtorIban, currency: payment.currency },
        instructedAmount: { currency: payment.currency, amount: decimalOf(payment.amountMinor) },
        creditorAccount: { iban: payment.creditorIban },
        creditorName: payment.creditorName,
        ...(budget
          ? {
              remittanceInformationUnstructured: budget.unstructured,
              remittanceInformationStructured: budget.structured,
            }
          : payment.remittanceInformation
            ? { remittanceInformationUnstructured: payment.remittanceInformation }
            : {}),
      };
      const initiated = await clientOf(bank).initiatePayment(productOf(payment.currency), request, {
        approach: input.confirm.approach,
        redirectUri: input.redirectUri,
        nokRedirectUri: input.nokRedirectUri,
        ...(input.confirm.psu ? { psu: input.confirm.psu } : {}),
      });
      const approach = initiated.approach ?? input.confirm.approach;
      await db
        .update(obPayments)
        .set({
          bankPaymentId: initiated.paymentId,
          bankTransactionStatus: initiated.transactionStatus,
          bankAuthorisationId: initiated.authorisationId,
          scaMethod: SCA_METHOD_OF[approach],
          scaRedirectUrl: initiated.scaRedirectUrl,
          state: 'INITIATED',
          updatedAt: new Date(),
        })
        .where(eq(obPayments.code, payment.code));
      return {
        bankPaymentId: initiated.paymentId,
        approach,
        scaRedirectUrl: initiated.scaRedirectUrl,
        authorisationId: initiated.authorisationId,
      };
    },

    /**
     * POST .../authorisations (embedded: the bank sends its one-time code; decoupled: the bank asks the
     * user in its app). Idempotent: once started, the recorded authorisation is answered (a second start
     * would send a second code and void the first).
     */
    async startBankAuthorisation(input: { code: string }): Promise<{ authorisationId: string }> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      if (payment.bankAuthorisationId) return { authorisationId: payment.bankAuthorisationId };
      const started = await clientOf(bank).startPaymentAuthorisation(product, bankPaymentId, psuOf(payment));
      const message =
        started.challengeData?.additionalInformation ??
        started.psuMessage ??
        started.chosenScaMethod?.name ??
        null;
      await db
        .update(obPayments)
        .set({ bankAuthorisationId: started.authorisationId, scaMessage: message, updatedAt: new Date() })
        .where(eq(obPayments.code, payment.code));
      return { authorisationId: started.authorisationId };
    },

    /**
     * PUT .../authorisations/{id} with the one-time code, taken from ob_sca_secrets by its reference
     * (decision 0068; a code sent before it comes as it is); the bank's errors are the connector's types.
     */
    async authoriseBankPayment(input: { code: string } & PaymentSmsRequest): Promise<ScaStatus> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      const authorisationId = payment.bankAuthorisationId;
      if (!authorisationId)
        throw ApplicationFailure.nonRetryable('no authorisation was started', 'PaymentNotRecorded');
      const relay = (smsCode: string) =>
        clientOf(bank).updatePaymentAuthorisation(
          product,
          bankPaymentId,
          authorisationId,
          smsCode,
          input.psu ?? psuOf(payment),
        );
      if (!('secretRef' in input)) return relay(input.smsCode);
      return relayHeldStep(
        deps,
        { secretRef: input.secretRef, subject: scaSecretSubject.payment(payment.code) },
        (fields) => relay(fields.smsCode ?? ''),
      );
    },

    /** GET .../authorisations/{id}: how the SCA stands (decoupled polling; after a wrong code). */
    async readBankAuthorisation(input: { code: string }): Promise<ScaStatus> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      if (!payment.bankAuthorisationId) return 'received';
      return clientOf(bank).getPaymentAuthorisationStatus(
        product,
        bankPaymentId,
        payment.bankAuthorisationId,
      );
    },

    /** GET .../status: the bank's transactionStatus, recorded. */
    async readBankPaymentStatus(input: { code: string }): Promise<TransactionStatus> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      const status = await clientOf(bank).getPaymentStatus(product, bankPaymentId);
      await db
        .update(obPayments)
        .set({ bankTransactionStatus: status })
        .where(eq(obPayments.code, payment.code));
      return status;
    },

    /**
     * DELETE /v1/payments/{product}/{id} (decision 0070): cancelled at once, or the bank's page where the
     * user authorises the cancellation (its own SCA, back to the payment's callback marked as the
     * cancellation's). A retry after a lost 204 meets 405: the bank's CANC says it was cancelled.
     */
    async cancelBankPayment(input: {
      code: string;
      redirectUri: string;
      nokRedirectUri: string;
      psu?: PsuPresence;
    }): Promise<BankPaymentCancellation> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      const client = clientOf(bank);
      const psu = input.psu ?? psuOf(payment);
      try {
        const answer = await client.cancelPayment(product, bankPaymentId, {
          redirectUri: input.redirectUri,
          nokRedirectUri: input.nokRedirectUri,
          ...(psu ? { psu } : {}),
        });
        if (answer.status === 'authorisationNeeded')
          return {
            status: answer.status,
            scaRedirectUrl: answer.scaRedirectUrl,
            scaStatusUrl: answer.scaStatusUrl,
          };
      } catch (error) {
        if (xs2aErrorTypeOf(error) !== Xs2aErrorType.StatusInvalid) throw error;
        if ((await client.getPaymentStatus(product, bankPaymentId)) !== 'CANC') throw error;
      }
      await db
        .update(obPayments)
        .set({ bankTransactionStatus: 'CANC' })
        .where(eq(obPayments.code, payment.code));
      return { status: 'cancelled' };
    },

    /**
     * After the cancellation's own SCA: `cancelled` once the bank says the payment is CANC, `kept` when
     * the user refused (the authorisation failed, or ended with the payment not cancelled), `open` while
     * the bank's authorisation has not ended.
     */
    async readBankCancellation(input: {
      code: string;
      scaStatusUrl: string | null;
    }): Promise<'cancelled' | 'kept' | 'open'> {
      const { payment, bank, bankPaymentId, product } = await requireBankPayment(input.code);
      const client = clientOf(bank);
      const scaStatus = input.scaStatusUrl
        ? await client.getCancellationAuthorisationStatus(product, bankPaymentId, input.scaStatusUrl)
        : 'finalised';
      if (scaStatus === 'failed') return 'kept';
      const status = await client.getPaymentStatus(product, bankPaymentId);
      await db
        .update(obPayments)
        .set({ bankTransactionStatus: status })
        .where(eq(obPayments.code, payment.code));
      if (status === 'CANC') return 'cancelled';
      return scaStatus === 'finalised' ? 'kept' : 'open';
    },

    /** Moves the read model's state (and status); a final state is never left. */
    async recordPaymentState(input: {
      code: string;
      state: PaymentState;
      reason?: string | null;
    }): Promise<void> {
      const now = new Date();
      const final = FINAL_PAYMENT_STATES.includes(input.state);
      await db
        .update(obPayments)
        .set({
          state: input.state,
          status: statusOfState(input.state),
          updatedAt: now,
          ...(input.reason !== undefined ? { statusReason: input.reason } : {}),
          ...(input.state === 'INITIATED' ? { confirmedAt: now } : {}),
          ...(final ? { finishedAt: now } : {}),
        })
        .where(and(eq(obPayments.code, input.code), notInArray(obPayments.state, [...FINAL_PAYMENT_STATES])));
    },

    /** Records who confirmed (PSU address and browser) when the payment is confirmed. */
    async recordPaymentConfirmation(input: { code: string; psu?: PsuPresence }): Promise<void> {
      await db
        .update(obPayments)
        .set({
          confirmedAt: new Date(),
          psuIpAddress: input.psu?.ipAddress ?? null,
          psuUserAgent: input.psu?.userAgent ?? null,
          updatedAt: new Date(),
        })
        .where(and(eq(obPayments.code, input.code), isNull(obPayments.confirmedAt)));
    },

    /**
     * The hook call of a finished payment: the hook's URL (or the user's signup `webhookUrl`) with
     * `state` appended, the event signed as a compact JWS. Null when there is nowhere to call, or the
     * hook does not want `payment.finished`.
     */
    async preparePaymentWebhook(input: { code: string; state: string }): Promise<WebhookRequest | null> {
      const [row] = await db
        .select({
          payment: obPayments,
          hook: obHooks,
          webhookUrl: obUsers.webhookUrl,
          webhookBodyFormat: obUsers.webhookBodyFormat,
        })
        .from(obPayments)
        .innerJoin(obUsers, eq(obUsers.id, obPayments.userId))
        .leftJoin(obHooks, eq(obHooks.hookHash, obPayments.hookHash))
        .where(and(eq(obPayments.code, input.code), isNull(obUsers.deletedAt)));
      if (!row) return null;
      const { payment, hook } = row;
      if (hook && !hook.events.includes('payment.finished')) return null;
      const target = hook?.url ?? row.webhookUrl;
      if (!target) return null;
      const eventId = `${payment.code}.finished`;
      const event: PaymentFinishedEvent = {
        iss: TOKEN_ISSUER,
        jti: eventId,
        iat: Math.floor((payment.finishedAt ?? new Date()).getTime() / 1000),
        type: 'payment.finished',
        state: input.state,
        code: payment.code,
        userId: payment.userId,
        bankHash: payment.bankHash,
        hookHash: payment.hookHash,
        kind: payment.kind,
        status: payment.status,
        paymentState: payment.state,
        bankTransactionStatus: payment.bankTransactionStatus,
        amount: decimalOf(payment.amountMinor),
        currency: payment.currency,
        creditorIban: payment.creditorIban,
        reason: payment.statusReason,
      };
      const { jws, kid } = await signJws(db, config, event);
      logger.debug({ code: payment.code, kid }, 'payment event signed');
      return {
        service: 'openbanking',
        ownerId: payment.agentId,
        url: target,
        urlParams: { state: input.state },
        eventType: 'payment.finished',
        eventId,
        subjectId: payment.code,
        payload: { jws, event: event as unknown as Record<string, unknown> },
        format: hookCallFormat(hook?.bodyFormat ?? row.webhookBodyFormat),
      };
    },
  };
}
