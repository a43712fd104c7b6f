import { z } from '@hono/zod-openapi';
import { APP_PATTERN, IBAN_ID_PATTERN } from '../../domain/openbanking/consents.ts';
import {
  type BudgetDetails,
  budgetDetailsSchema,
  ibanSchema,
  paymentOrderSchema,
} from '../../domain/openbanking/payment-orders.ts';
import {
  PAYMENT_CODE_PATTERN,
  PAYMENT_KINDS,
  PAYMENT_SCA_METHODS,
  PAYMENT_STATES,
  PAYMENT_STATUSES,
  TRANSACTION_STATUSES,
} from '../../domain/openbanking/payments.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { bankHashParam } from './bank-schemas.ts';

/**
 * Schemas shared by the payment operations (payment/iban, payment/direct, budget-request, POST/PUT
 * payment, verify-sms, payment/status, status/{hookHash}): the Payment record and the request bodies.
 * The use cases: application/openbanking/payments.ts. Decision 0033.
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

/** The budget details of a budget request body. */
export const budgetOf = (body: BudgetDetails): BudgetDetails => budgetDetailsSchema.parse(body);

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
