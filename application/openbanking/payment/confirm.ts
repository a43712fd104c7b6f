import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import type { UserIdentity } from '../../../credentials/openbanking/identity.ts';
import { scaSecretSubject } from '../../../credentials/openbanking/sca-secrets.ts';
import type { Database } from '../../../db/client.ts';
import { obBanks } from '../../../db/schema/openbanking.ts';
import type { PaymentRow } from '../../../db/schema/openbanking-payments.ts';
import type { PaymentScaMethod } from '../../../domain/openbanking/payments.ts';
import {
  PaymentRefusal,
  paymentConfirmUpdate,
  paymentVerifySmsUpdate,
  paymentWorkflowId,
} from '../../../domain/openbanking/processes.ts';
import { type ScaApproach, Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { findUserAccount } from '../accounts.ts';
import { sendHeldScaStep } from '../held-sca-steps.ts';
import { type PsuRequest, psuOf } from '../psu.ts';
import { findUserPayment, type PaymentView, paymentAuthorizationOf, toPaymentView } from './read.ts';

/**
 * Confirming a single payment (its initiation at the bank, an Update of its workflow) and relaying the
 * bank's SMS code of an embedded SCA (decision 0068: the code waits in ob_sca_secrets, never in the engine).
 */

const APPROACH_OF: Record<PaymentScaMethod, ScaApproach> = {
  REDIRECT: 'REDIRECT',
  EMBEDDED_SMS_OTP: 'EMBEDDED',
  DECOUPLED: 'DECOUPLED',
};

async function defaultApproach(db: Database, bankHash: string): Promise<ScaApproach> {
  const [bank] = await db
    .select({ flow: obBanks.bankFlowType })
    .from(obBanks)
    .where(eq(obBanks.bankHash, bankHash));
  return (bank?.flow.toUpperCase() ?? 'REDIRECT') as ScaApproach;
}

/**
 * Confirms the payment `code` of the user: the first confirmation initiates it at the bank and answers
 * once the bank said how the user authenticates; a later one answers the payment as it stands, moving
 * no money. With `checkAccount`, a payment from an added account whose authorization flag is false is 409.
 */
export async function confirmPayment(
  deps: UseCaseDeps,
  {
    user,
    psu: psuRequest,
    ...request
  }: {
    user: UserIdentity;
    code: string;
    scaMethod?: PaymentScaMethod | undefined;
    checkAccount?: boolean | undefined;
    psu: PsuRequest;
  },
): Promise<PaymentView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, request.code);
  if (row.state === 'CREATED' && request.checkAccount && row.ibanId) {
    const { account, consent } = await findUserAccount(db, user.userId, row.ibanId);
    const flag = paymentAuthorizationOf(account, consent);
    if (!flag.authorized)
      throw Refusal.conflict(
        'payment_not_authorized',
        `Payments from this account need SCA first (${flag.reason}): POST payment/sca/${row.ibanId}`,
      );
  }
  const psu = psuOf(psuRequest);
  const approach = request.scaMethod
    ? APPROACH_OF[request.scaMethod]
    : await defaultApproach(db, row.bankHash);
  try {
    await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .executeUpdate(paymentConfirmUpdate, { args: [{ approach, ...(psu ? { psu } : {}) }] });
  } catch (error) {
    // The payment ended already (expired, or confirmed and done): its record is the answer.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return toPaymentView(await findUserPayment(db, user, row.code));
}

/** The exact answers of PUT payment/verify-sms's refusals. */
const SMS_REFUSALS = {
  [PaymentRefusal.smsCodeInvalid]: {
    status: 422,
    code: 'sms_code_invalid',
    message: 'The SMS code is wrong',
  },
  [PaymentRefusal.smsCodeExpired]: {
    status: 422,
    code: 'sms_code_expired',
    message: 'The SMS code has expired',
  },
  [PaymentRefusal.smsCodeUsed]: {
    status: 409,
    code: 'sms_code_used',
    message: 'The SMS code was already used',
  },
  [PaymentRefusal.notAwaitingCode]: {
    status: 409,
    code: 'payment_not_awaiting_code',
    message: 'The payment is not waiting for an SMS code',
  },
  [PaymentRefusal.stepExpired]: {
    status: 409,
    code: 'sca_step_expired',
    message: 'The SMS code is no longer held (it expired, or an interrupted attempt used it): send it again',
  },
} as const;

const refusal = (type: keyof typeof SMS_REFUSALS) => {
  const { status, code, message } = SMS_REFUSALS[type];
  return new Refusal(status, code, message);
};

const usedOrNotAwaiting = (row: PaymentRow): keyof typeof SMS_REFUSALS =>
  row.scaMethod === 'EMBEDDED_SMS_OTP' &&
  row.confirmedAt &&
  row.state !== 'AWAITING_SCA' &&
  row.state !== 'INITIATED'
    ? PaymentRefusal.smsCodeUsed
    : PaymentRefusal.notAwaitingCode;

/** Relays the bank's one-time code to the payment's authorisation at the bank; answers the payment. */
export async function verifySms(
  deps: UseCaseDeps,
  {
    user,
    psu: psuRequest,
    ...request
  }: { user: UserIdentity; code: string; smsCode: string; psu: PsuRequest },
): Promise<PaymentView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, request.code);
  const psu = psuOf(psuRequest);
  try {
    // The code does not cross the engine (decision 0068): the Update names it in ob_sca_secrets.
    await sendHeldScaStep(
      deps,
      scaSecretSubject.payment(row.code),
      { smsCode: request.smsCode },
      (secretRef) =>
        temporal.workflow.getHandle(paymentWorkflowId(row.code)).executeUpdate(paymentVerifySmsUpdate, {
          args: [{ secretRef, ...(psu ? { psu } : {}) }],
        }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const type = error.cause.type as keyof typeof SMS_REFUSALS;
      if (type in SMS_REFUSALS) {
        // A code sent again after the payment went through was used already.
        if (type === PaymentRefusal.notAwaitingCode) throw refusal(usedOrNotAwaiting(row));
        throw refusal(type);
      }
    }
    if (error instanceof WorkflowNotFoundError) {
      throw refusal(usedOrNotAwaiting(await findUserPayment(db, user, row.code)));
    }
    // Any other failure of the bank's call: the code was taken (decision 0068), so it is given again.
    if (error instanceof WorkflowUpdateFailedError) throw bankFailureOf(error);
    throw error;
  }
  return toPaymentView(await findUserPayment(db, user, row.code));
}

/** The bank could not be reached (503), or refused the code for a reason the gateway has no answer for (502). */
function bankFailureOf(error: WorkflowUpdateFailedError): Refusal {
  const cause = error.cause instanceof ActivityFailure ? error.cause.cause : error.cause;
  if (cause instanceof ApplicationFailure && cause.type === Xs2aErrorType.BankUnavailable)
    return new Refusal(503, 'bank_unavailable', 'The bank could not be reached; send the code again later');
  return new Refusal(
    502,
    'bank_refused',
    'The bank refused the code; send it again or start the payment again',
  );
}
