import { createRoute, z } from '@hono/zod-openapi';
import type { SubmissionInput } from '../../../application/lending/index.ts';
import { lending } from '../../../application/lending/index.ts';
import { Refusal } from '../../../application/shared/refusal.ts';
import { submissionModes, submissionStatuses } from '../../../domain/lending/repayment-submissions.ts';
import { repaymentModes } from '../../../domain/lending/servicing.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { lendingPath } from '../paths.ts';
import { repaymentErrorResponses, repaymentFields } from '../repayment-schemas.ts';

const loanId = z.string().min(1).max(40).openapi({ example: '482913675' });
const repaymentMode = z.enum(repaymentModes).openapi({
  description:
    'The spec’s repayment mode, required (decision 0086). `Regular payment`: fees, interest, then principal of the ' +
    'oldest instalment first; `Early repayment`: principal only, from the last instalment backwards (decision 0043)',
});
const channel = z.enum(submissionModes).openapi({
  description:
    'How the money comes in (default `card`). `card`: charged now to the customer’s default card (or ' +
    '`paymentMethodId`); `bankTransfer`: a deposit slip the customer pays by a bank transfer quoting its reference',
});
const paymentMethodId = z.string().min(1).max(100).openapi({
  description:
    'card: the card to charge (`card_…`); bankTransfer: the customer’s bank account paid from (`bac_…`)',
  example: 'card_3f2a9c1d7e5b4a60',
});
const reference = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .openapi({
    description:
      'The client’s idempotency reference: the same reference for the loan again answers the first submission ' +
      '(nothing is charged or registered twice)',
    example: 'front-7f3a-2026-03-10',
  });

/** The spec's call: everything in the query (`loanId`, `amount`, `mode` are the spec's, all required). */
const submissionQuery = z.object({
  loanId: loanId.optional().openapi({ param: { required: true } }),
  amount: repaymentFields.amount.optional().openapi({ param: { required: true } }),
  mode: repaymentMode.optional().openapi({ param: { required: true } }),
  channel: channel.optional(),
  paymentMethodId: paymentMethodId.optional(),
  reference: reference.optional(),
});

/** The same fields as a JSON body (the earlier form); `mode` `card` / `bankTransfer` is the deprecated channel. */
const submissionBody = z
  .object({
    loanId: loanId.optional(),
    amount: repaymentFields.amount.optional(),
    mode: z
      .enum([...repaymentModes, ...submissionModes])
      .optional()
      .openapi({
        description:
          'The repayment mode (required, here or in the query); deprecated: `card` or `bankTransfer` here is the ' +
          '`channel` and books a Regular payment (0.1.0’s meaning of `mode`, kept for its clients: decision 0086)',
      }),
    channel: channel.optional(),
    paymentMethodId: paymentMethodId.optional(),
    reference: reference.optional(),
  })
  .strict()
  .openapi('RepaymentSubmission');

type Fields = z.infer<typeof submissionQuery>;

/** The query's and the body's fields as one; a field given differently in both is refused naming it. */
function submissionInput(query: Fields, body: z.infer<typeof submissionBody> | undefined): SubmissionInput {
  const { mode: bodyMode, ...rest } = body ?? {};
  const fromBody: Fields = { ...rest };
  const legacyChannel = bodyMode === 'card' || bodyMode === 'bankTransfer';
  if (legacyChannel) {
    if (rest.channel && rest.channel !== bodyMode)
      throw Refusal.field('channel', 'the body’s `mode` (the deprecated channel) and `channel` differ');
    fromBody.channel = bodyMode;
  } else if (bodyMode) fromBody.mode = bodyMode;
  const merged: Fields = { ...fromBody };
  for (const [name, value] of Object.entries(query) as [keyof Fields, string | undefined][]) {
    if (value === undefined) continue;
    const other = fromBody[name];
    if (other !== undefined && other !== value)
      throw Refusal.field(name, `given differently in the query (${value}) and the body (${other})`);
    Object.assign(merged, { [name]: value });
  }
  if (!merged.loanId) throw Refusal.field('loanId', 'is required');
  if (!merged.amount) throw Refusal.field('amount', 'is required');
  // Required as the spec marks it; 0.1.0's body (`mode` card / bankTransfer) always booked a Regular payment.
  const mode = merged.mode ?? (legacyChannel ? 'Regular payment' : undefined);
  if (!mode) throw Refusal.field('mode', 'is required: `Regular payment` or `Early repayment`');
  return {
    loanId: merged.loanId,
    amount: merged.amount,
    mode,
    channel: merged.channel ?? 'card',
    paymentMethodId: merged.paymentMethodId,
    reference: merged.reference,
  };
}

const submissionSchema = z
  .object({
    submissionId: z.string().openapi({ example: 'sub_9c1d7e5b4a603f2a' }),
    loanId: z.string(),
    mode: z.enum(repaymentModes).openapi({ description: 'The repayment mode the money is booked as' }),
    channel: z.enum(submissionModes),
    status: z.enum(submissionStatuses).openapi({
      description:
        'card: `paid` (booked), `declined`, or `charging` while the gateway has not answered; bankTransfer: `pending` ' +
        '(pay it), `registering` while the gateway has not answered, later `paid` or `expired`; `reversed` when the ' +
        'bank took the payment back (its repayment reversed; the slip payable again until it expires)',
    }),
    amount: z.string().openapi({ example: '150.00' }),
    currency: z.string().openapi({ example: 'EUR' }),
    reference: z.string().nullable().openapi({
      description: 'The gateway’s IDN: for a bank transfer, what the remittance information must quote',
      example: '4817302245',
    }),
    invoice: z.string().openapi({ description: 'The gateway INVOICE; the booked repayment’s reference' }),
    paymentMethodId: z.string().nullable(),
    iban: z.string().nullable().openapi({ description: 'bankTransfer: the account to pay to' }),
    beneficiary: z.string().nullable(),
    expiresAt: z.string().nullable().openapi({ description: 'bankTransfer: pay before this' }),
    reason: z.string().nullable().openapi({ description: 'Why it was declined, expired or reversed' }),
    repaymentId: z.string().nullable().openapi({ description: 'The repayment booked (paid)' }),
  })
  .openapi('RepaymentSubmissionAnswer');

/**
 * `POST /PaymentOptions/SubmitRepayment`: the customer repays through the collection gateway (decision
 * 0045): a charge of a saved card, or a deposit slip paid by bank transfer. An Update of the loan's
 * workflow (Active or Past Due, at most what the loan owes); the money is booked in the spec's repayment
 * `mode` (Regular or Early repayment) with the submission's INVOICE as its reference, once, whether the charge's answer or the gateway's
 * notification comes first.
 */
export const paymentOptionsSubmitRepaymentOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/SubmitRepayment'),
      tags: ['Payment options'],
      summary: 'Submit a repayment (card or bank transfer)',
      description:
        'The spec’s query parameters `loanId`, `amount`, `mode` (all three required; `Regular payment`, or `Early ' +
        'repayment`: principal only, at most the outstanding principal), plus `channel` (`card`, default, or `bankTransfer`), ' +
        '`paymentMethodId` and `reference`; the same fields may come as a JSON body instead (its `mode` `card` / ' +
        '`bankTransfer` is the deprecated channel, 0.1.0’s form, and books a Regular payment). A field given differently in the query and the body: 400 naming it. ' +
        'For the customer’s own Active or Past Due loan (else 409 `invalid_loan_status`; another customer’s: 404), at ' +
        'most what it owes (400 `repayment_exceeds_balance` naming `amount`). `card`: the default card is charged ' +
        '(409 `no_card` without one, `card_not_active` for a card not saved); 201 `paid` (booked at once) or ' +
        '`declined` (nothing charged). `bankTransfer`: 202 `pending` with `reference` (the IDN to quote), `iban`, ' +
        '`beneficiary` and `expiresAt`; booked when the gateway’s statement import settles it. 202 `charging` / ' +
        '`registering` when the gateway has not answered within 20 s (the call goes on). 502 `collect_gateway_refused` ' +
        'when the gateway refused the payment. 409 `collect_merchant_not_configured`, `repayment_currency_unsupported` ' +
        '(the gateway takes BGN, EUR and USD).',
      security: lendingSecurity.user,
      request: {
        query: submissionQuery,
        body: { required: false, content: { 'application/json': { schema: submissionBody } } },
      },
      responses: {
        201: {
          description: 'Charged: paid or declined',
          content: { 'application/json': { schema: submissionSchema } },
        },
        202: {
          description: 'Pending: a deposit slip to pay by bank transfer (or the gateway still answering)',
          content: { 'application/json': { schema: submissionSchema } },
        },
        ...repaymentErrorResponses,
        502: {
          description: '`collect_gateway_refused`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const input = submissionInput(c.req.valid('query'), c.req.valid('json'));
    const held = await lending.submitRepayment(c.get('deps'), { caller: customerCaller(c), ...input });
    const settled = held.status === 'paid' || held.status === 'declined';
    return c.json(held, settled ? 201 : 202);
  },
});
