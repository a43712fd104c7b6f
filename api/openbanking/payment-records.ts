import { randomBytes } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import { digestOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import type { Database } from '../../db/client.ts';
import { type obAccounts, obBanks, type obConsents, obHooks } from '../../db/schema/openbanking.ts';
import { obPayments, type PaymentRow } from '../../db/schema/openbanking-payments.ts';
import { APP_PATTERN, IBAN_ID_PATTERN } from '../../domain/openbanking/consents.ts';
import {
  type BudgetDetails,
  budgetDetailsSchema,
  decimalOf,
  ibanSchema,
  minorOf,
  PAYMENT_CODE_PATTERN,
  PAYMENT_KINDS,
  PAYMENT_SCA_METHODS,
  PAYMENT_STATES,
  PAYMENT_STATUSES,
  type PaymentKind,
  type PaymentScaMethod,
  paymentOrderSchema,
  TRANSACTION_STATUSES,
} from '../../domain/openbanking/payments.ts';
import {
  openBankingSearchAttributes,
  type PaymentFlowInput,
  PaymentRefusal,
  paymentCallbackSignal,
  paymentConfirmUpdate,
  paymentVerifySmsUpdate,
  paymentWorkflowId,
} from '../../domain/openbanking/processes.ts';
import type { ScaApproach } from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import type { paymentExecution } from '../../workflows/openbanking/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { requireUserAccount } from './account-records.ts';
import { bankHashParam, findBank } from './bank-records.ts';
import { psuOf } from './consent.ts';
import { findUsableHook } from './hook-records.ts';
import { publicBaseUrl } from './public-url.ts';

/**
 * Records and flows shared by the payment operations (payment/iban, payment/direct, budget-request,
 * POST/PUT payment, verify-sms, payment/status, status/{hookHash}): the Payment record, the payment's
 * creation (row + workflow `ob-payment-<code>`), its confirmation and SMS verification (Updates), and
 * the authorization flag of an added account. Decision 0033.
 */

export const paymentCodeSchema = z
  .string()
  .regex(PAYMENT_CODE_PATTERN, 'must be a payment code (pay_ + 32 hex characters)')
  .openapi({
    description: 'The payment code answered when the payment was created',
    example: 'pay_0f8fad5b…',
  });

export const userAgentHeaders = z.object({
  'user-agent': z
    .string()
    .max(1000)
    .optional()
    .openapi({ description: 'The user’s browser, forwarded to the bank as PSU-User-Agent' }),
  'x-psu-ip-address': z.string().max(100).optional().openapi({
    description:
      'The user’s IP address, forwarded to the bank as PSU-IP-Address (default: the caller’s address)',
  }),
});

export const paymentOrderBody = paymentOrderSchema.extend({
  hookHash: z.string().min(1).max(100).optional().openapi({
    description: 'A hook (createhook) called back with `payment.finished` when the payment ends',
  }),
  app: z
    .string()
    .regex(APP_PATTERN, 'lower-case letters, digits and dashes, at most 32')
    .default('web')
    .openapi({
      description: 'Your application’s name in the bank callback path /redirect/{app}/state/{state}',
    }),
});

export const paymentSchema = z
  .object({
    code: z.string().openapi({ description: 'Confirm with it (POST/PUT payment) and read the status by it' }),
    kind: z.enum(PAYMENT_KINDS),
    status: z
      .enum(PAYMENT_STATUSES)
      .openapi({ description: 'WAITING, CONFIRMED (the bank settled it) or FAILED' }),
    state: z.enum(PAYMENT_STATES).openapi({ description: 'The gateway’s finer state (docs/openbanking.md)' }),
    statusReason: z.string().nullable(),
    ibanId: z.string().nullable(),
    debtorIban: z.string(),
    bankHash: z.string(),
    creditorIban: z.string(),
    creditorName: z.string(),
    amount: z.string().openapi({ example: '12.50' }),
    currency: z.string(),
    remittanceInformation: z.string().nullable(),
    budget: z
      .object({
        regulatoryReportType: z.string(),
        paymentCategory: z.string(),
        details: z.record(z.string(), z.string()),
      })
      .nullable(),
    hookHash: z.string().nullable(),
    sca: z
      .object({
        method: z.enum(PAYMENT_SCA_METHODS),
        redirectUrl: z.string().nullable().openapi({ description: 'REDIRECT: send the user’s browser here' }),
        message: z
          .string()
          .nullable()
          .openapi({ description: 'Where the bank sent its code; what the user is to do' }),
      })
      .nullable(),
    bankTransactionStatus: z.enum(TRANSACTION_STATUSES).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    confirmedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .openapi('Payment');
export type PaymentRecord = z.infer<typeof paymentSchema>;

export const toPaymentRecord = (row: PaymentRow): PaymentRecord => ({
  code: row.code,
  kind: row.kind,
  status: row.status,
  state: row.state,
  statusReason: row.statusReason,
  ibanId: row.ibanId,
  debtorIban: row.debtorIban,
  bankHash: row.bankHash,
  creditorIban: row.creditorIban,
  creditorName: row.creditorName,
  amount: decimalOf(row.amountMinor),
  currency: row.currency,
  remittanceInformation: row.remittanceInformation,
  budget:
    row.regulatoryReportType && row.paymentCategory
      ? {
          regulatoryReportType: row.regulatoryReportType,
          paymentCategory: row.paymentCategory,
          details: row.budgetDetails ?? {},
        }
      : null,
  hookHash: row.hookHash,
  sca: row.scaMethod
    ? { method: row.scaMethod, redirectUrl: row.scaRedirectUrl, message: row.scaMessage }
    : null,
  bankTransactionStatus: row.bankTransactionStatus,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

/** A payment of the calling user; unknown, or another user's, is 404 (existence is not leaked). */
export async function findUserPayment(db: Database, user: UserIdentity, code: string): Promise<PaymentRow> {
  const [row] = await db
    .select()
    .from(obPayments)
    .where(and(eq(obPayments.code, code), eq(obPayments.userId, user.userId)))
    .limit(1);
  if (!row) throw Refusal.notFound('Payment');
  return row;
}

// ─── The authorization flag of an added account ─────────────────────────────────────────────────

/**
 * An added account may be paid from (flag true) while the consent that added it is ACTIVE and within
 * its validUntil: the user has proven at the bank, with SCA, that the account is theirs. Otherwise
 * (the consent expired, was revoked or ended) the flag is false and POST payment/sca/{ibanId} starts a
 * new consent for that account. Every payment is still authorised by the user at the bank (its own SCA).
 */
export function paymentAuthorizationOf(
  account: typeof obAccounts.$inferSelect,
  consent: typeof obConsents.$inferSelect,
  today = new Date().toISOString().slice(0, 10),
): { authorized: boolean; reason: string | null } {
  if (consent.status !== 'ACTIVE')
    return { authorized: false, reason: `the consent that added the account is ${consent.status}` };
  if (consent.validUntil < today)
    return { authorized: false, reason: 'the consent that added the account has expired' };
  if (account.deletedAt) return { authorized: false, reason: 'the account was deleted' };
  return { authorized: true, reason: null };
}

export const authorizationSchema = z
  .object({
    ibanId: z.string(),
    iban: z.string(),
    authorized: z.boolean().openapi({
      description: 'true: payments from the account may be confirmed; false: POST payment/sca/{ibanId} first',
    }),
    reason: z.string().nullable(),
    consentValidUntil: z.string(),
  })
  .openapi('PaymentAuthorization');

// ─── Creating, confirming, verifying ────────────────────────────────────────────────────────────

export interface PaymentDraft {
  kind: PaymentKind;
  ibanId: string | null;
  debtorIban: string;
  bankHash: string;
  bankName: string;
  order: z.infer<typeof paymentOrderBody>;
  budget?: BudgetDetails;
  userAgent?: string | undefined;
}

/** Records the payment (CREATED, WAITING) and starts its workflow; answers the record. */
export async function createPayment(c: Context<AppEnv>, user: UserIdentity, draft: PaymentDraft) {
  const { db, config, temporal } = c.get('deps');
  const { order } = draft;
  if (order.hookHash && !(await findUsableHook(db, user, order.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');
  const code = `pay_${randomBytes(16).toString('hex')}`;
  const state = randomBytes(32).toString('base64url');
  const psu = psuOf(c, draft.userAgent);
  const { regulatoryReportType, paymentCategory, ...details } = draft.budget ?? {};
  const [row] = await db
    .insert(obPayments)
    .values({
      code,
      agentId: user.agentId,
      userId: user.userId,
      kind: draft.kind,
      ibanId: draft.ibanId,
      debtorIban: draft.debtorIban,
      bankHash: draft.bankHash,
      creditorIban: order.creditorIban,
      creditorName: order.creditorName,
      amountMinor: minorOf(order.amount),
      currency: order.currency,
      remittanceInformation: order.remittanceInformation ?? null,
      regulatoryReportType: regulatoryReportType ?? null,
      paymentCategory: paymentCategory ?? null,
      budgetDetails: draft.budget ? (details as Record<string, string>) : null,
      hookHash: order.hookHash ?? null,
      app: order.app,
      stateDigest: digestOf(state),
      status: 'WAITING',
      state: 'CREATED',
      psuIpAddress: psu?.ipAddress ?? null,
      psuUserAgent: psu?.userAgent ?? null,
    })
    .returning();
  const callbackUrl = `${publicBaseUrl(c)}/openbanking/redirect/${order.app}/state/${state}`;
  const input: PaymentFlowInput = {
    code,
    state,
    redirectUri: callbackUrl,
    nokRedirectUri: `${callbackUrl}?outcome=nok`,
    confirmationTimeoutMs: config.OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT,
    scaTimeoutMs: config.OPENBANKING_SCA_TIMEOUT,
    decoupledPollMs: config.OPENBANKING_DECOUPLED_POLL_INTERVAL,
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
  };
  await temporal.workflow.start<typeof paymentExecution>('paymentExecution', {
    workflowId: paymentWorkflowId(code),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowIdConflictPolicy: 'FAIL',
    args: [input],
    typedSearchAttributes: [
      ...openBankingSearchAttributes({ ...user, bankHash: draft.bankHash }),
      { key: BusinessStatus, value: 'CREATED' },
    ],
    staticSummary: `Payment ${code} (${draft.kind}) of ${order.amount} ${order.currency} by user ${user.userId} at ${draft.bankName}`,
  });
  return { ...toPaymentRecord(row!), callbackState: state };
}

export const confirmBody = z.object({
  code: paymentCodeSchema,
  scaMethod: z
    .enum(PAYMENT_SCA_METHODS)
    .optional()
    .openapi({
      description:
        'How the user authenticates at the bank: REDIRECT (the bank’s page), EMBEDDED_SMS_OTP (the bank texts a code: ' +
        'PUT /api/8/payment/verify-sms) or DECOUPLED (the bank’s app); default: the bank’s own flow',
    }),
});

const APPROACH_OF: Record<PaymentScaMethod, ScaApproach> = {
  REDIRECT: 'REDIRECT',
  EMBEDDED_SMS_OTP: 'EMBEDDED',
  DECOUPLED: 'DECOUPLED',
};

/**
 * Confirms the payment `code` of the user: the first confirmation initiates it at the bank and answers
 * once the bank said how the user authenticates; a later one answers the payment as it stands, moving
 * no money. A payment from an added account whose authorization flag is false is 409.
 */
export async function confirmPayment(
  c: Context<AppEnv>,
  user: UserIdentity,
  request: { code: string; scaMethod?: PaymentScaMethod | undefined; userAgent?: string | undefined },
  authorization?: (row: PaymentRow) => Promise<{ authorized: boolean; reason: string | null } | null>,
): Promise<PaymentRecord> {
  const { db, temporal } = c.get('deps');
  const row = await findUserPayment(db, user, request.code);
  if (row.state === 'CREATED' && authorization) {
    const flag = await authorization(row);
    if (flag && !flag.authorized)
      throw Refusal.conflict(
        'payment_not_authorized',
        `Payments from this account need SCA first (${flag.reason}): POST payment/sca/${row.ibanId}`,
      );
  }
  const psu = psuOf(c, request.userAgent);
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
  return toPaymentRecord(await findUserPayment(db, user, row.code));
}

async function defaultApproach(db: Database, bankHash: string): Promise<ScaApproach> {
  const [bank] = await db
    .select({ flow: obBanks.bankFlowType })
    .from(obBanks)
    .where(eq(obBanks.bankHash, bankHash));
  return (bank?.flow.toUpperCase() ?? 'REDIRECT') as ScaApproach;
}

/** The exact answers of PUT payment/verify-sms's refusals. */
export const SMS_REFUSALS = {
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
} as const;

const refusal = (type: keyof typeof SMS_REFUSALS) => {
  const { status, code, message } = SMS_REFUSALS[type];
  return new Refusal(status, code, message);
};

/** Relays the bank's one-time code to the payment's authorisation at the bank; answers the payment. */
export async function verifySms(
  c: Context<AppEnv>,
  user: UserIdentity,
  request: { code: string; smsCode: string; userAgent?: string | undefined },
): Promise<PaymentRecord> {
  const { db, temporal } = c.get('deps');
  const row = await findUserPayment(db, user, request.code);
  const psu = psuOf(c, request.userAgent);
  try {
    await temporal.workflow.getHandle(paymentWorkflowId(row.code)).executeUpdate(paymentVerifySmsUpdate, {
      args: [{ smsCode: request.smsCode, ...(psu ? { psu } : {}) }],
    });
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
    throw error;
  }
  return toPaymentRecord(await findUserPayment(db, user, row.code));
}

const usedOrNotAwaiting = (row: PaymentRow): keyof typeof SMS_REFUSALS =>
  row.scaMethod === 'EMBEDDED_SMS_OTP' &&
  row.confirmedAt &&
  row.state !== 'AWAITING_SCA' &&
  row.state !== 'INITIATED'
    ? PaymentRefusal.smsCodeUsed
    : PaymentRefusal.notAwaitingCode;

export const paymentErrorResponses = {
  409: {
    description: 'The payment cannot move that way now (see the error code)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  422: {
    description: 'The SMS code is wrong or has expired',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

// ─── Creation bodies: from an added account, or from an IBAN the user names ─────────────────────

export const fromAccountFields = {
  ibanId: z.string().regex(IBAN_ID_PATTERN, 'must be an ibanId from GET ibans').openapi({
    description: 'The added account to pay from (GET ibans)',
    example: 'iba_5b0f1f3c9d2e4a7b8c6d0e1f',
  }),
};

export const directFields = {
  bankHash: bankHashParam.openapi({ param: undefined, description: 'The debtor’s bank, from GET banks' }),
  // The IBAN to pay from (the user authenticates at its bank). No .openapi() on a domain schema: it may
  // be created before @hono/zod-openapi extends zod, and then has no such method.
  debtorIban: ibanSchema,
};

export const budgetFields = budgetDetailsSchema.shape;

/** The draft of a payment from the user's added account `ibanId` (404 when it is not theirs). */
export async function draftFromAccount(
  c: Context<AppEnv>,
  kind: 'iban' | 'budget',
  body: z.infer<typeof paymentOrderBody> & { ibanId: string },
  userAgent: string | undefined,
) {
  const { user, account, bank } = await requireUserAccount(c, body.ibanId);
  if (account.currency !== body.currency)
    throw Refusal.field('currency', `must be the account’s currency (${account.currency})`);
  const { ibanId, ...order } = body;
  return {
    user,
    draft: {
      kind,
      ibanId,
      debtorIban: account.iban,
      bankHash: bank.bankHash,
      bankName: bank.name,
      order: paymentOrderBody.parse(order),
      userAgent,
    } satisfies PaymentDraft,
  };
}

/** The draft of a payment from an IBAN the user names at a bank (no consent, no added account). */
export async function draftDirect(
  c: Context<AppEnv>,
  kind: 'direct' | 'budget_no_iban',
  body: z.infer<typeof paymentOrderBody> & { bankHash: string; debtorIban: string },
  userAgent: string | undefined,
): Promise<PaymentDraft> {
  const { row: bank } = await findBank(c.get('deps').db, body.bankHash);
  const { bankHash: _bank, debtorIban, ...order } = body;
  return {
    kind,
    ibanId: null,
    debtorIban,
    bankHash: bank.bankHash,
    bankName: bank.name,
    order: paymentOrderBody.parse(order),
    userAgent,
  };
}

/** The budget details of a budget request body. */
export const budgetOf = (body: BudgetDetails): BudgetDetails => budgetDetailsSchema.parse(body);

/** For the confirmation: the authorization flag of the payment's account (null for direct kinds). */
export const accountAuthorization = (c: Context<AppEnv>) => async (row: PaymentRow) => {
  if (!row.ibanId) return null;
  const { account, consent } = await requireUserAccount(c, row.ibanId);
  return paymentAuthorizationOf(account, consent);
};

export const createdSchema = paymentSchema
  .extend({
    callbackState: z.string().openapi({
      description: 'Unique; appended as `state` to the hook call and the redirectUrl of this payment',
    }),
    authorized: z.boolean().nullable().openapi({
      description:
        'From an added account: its authorization flag (false: POST payment/sca/{ibanId} before confirming); null for direct payments',
    }),
  })
  .openapi('PaymentCreated');

/**
 * The bank callback `/redirect/{app}/state/{state}` of a payment's redirect SCA: the payment is found by
 * the digest of its state and its workflow signalled (the bank, not the browser, then says how the
 * payment stands). Undefined when no payment has this state.
 */
export async function paymentBankCallback(
  c: Context<AppEnv>,
  app: string,
  state: string,
): Promise<{ redirectUrl: string | null } | undefined> {
  const { db, temporal, logger } = c.get('deps');
  const [row] = await db
    .select({ code: obPayments.code, redirectUrl: obHooks.redirectUrl })
    .from(obPayments)
    .leftJoin(obHooks, eq(obHooks.hookHash, obPayments.hookHash))
    .where(and(eq(obPayments.stateDigest, digestOf(state)), eq(obPayments.app, app)))
    .limit(1);
  if (!row) return undefined;
  try {
    await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .signal(paymentCallbackSignal, { nok: c.req.query('outcome') === 'nok' });
  } catch (error) {
    // The payment ended already (expired, or a repeated callback): the user is still sent on.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ code: row.code }, 'bank callback after the payment ended');
  }
  return { redirectUrl: row.redirectUrl };
}
