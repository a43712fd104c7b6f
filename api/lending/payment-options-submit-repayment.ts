import { createRoute, z } from '@hono/zod-openapi';
import { submitRepayment } from '../../application/lending/repayment-submissions.ts';
import { submissionModes } from '../../domain/lending/repayment-submissions.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { customerCaller } from './callers.ts';
import { lendingPath } from './paths.ts';
import { repaymentErrorResponses, repaymentFields } from './repayment-schemas.ts';

const submissionBody = z
  .object({
    loanId: z.string().min(1).max(40).openapi({ example: '482913675' }),
    amount: repaymentFields.amount,
    mode: z.enum(submissionModes).openapi({
      description:
        '`card`: charged now to the customer’s default card (or `paymentMethodId`); `bankTransfer`: a deposit slip ' +
        'the customer pays by a bank transfer quoting its reference. Either way a Regular payment',
    }),
    paymentMethodId: z.string().min(1).max(100).optional().openapi({
      description:
        'card: the card to charge (`card_…`); bankTransfer: the customer’s bank account paid from (`bac_…`)',
      example: 'card_3f2a9c1d7e5b4a60',
    }),
    reference: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .openapi({
        description:
          'The client’s idempotency reference: the same reference for the loan again answers the first submission ' +
          '(nothing is charged or registered twice)',
        example: 'front-7f3a-2026-03-10',
      }),
  })
  .strict()
  .openapi('RepaymentSubmission');

const submissionSchema = z
  .object({
    submissionId: z.string().openapi({ example: 'sub_9c1d7e5b4a603f2a' }),
    loanId: z.string(),
    mode: z.enum(submissionModes),
    status: z.enum(['charging', 'paid', 'declined', 'registering', 'pending', 'expired', 'failed']).openapi({
      description:
        'card: `paid` (booked), `declined`, or `charging` while the gateway has not answered; bankTransfer: `pending` ' +
        '(pay it), `registering` while the gateway has not answered, later `paid` or `expired`',
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
    reason: z.string().nullable().openapi({ description: 'Why it was declined' }),
    repaymentId: z.string().nullable().openapi({ description: 'The repayment booked (paid)' }),
  })
  .openapi('RepaymentSubmissionAnswer');

/**
 * `POST /PaymentOptions/SubmitRepayment`: the customer repays through the collection gateway (decision
 * 0045): a charge of a saved card, or a deposit slip paid by bank transfer. An Update of the loan's
 * workflow (Active or Past Due, at most what the loan owes); the money is booked as a Regular payment
 * whose reference is the submission's INVOICE, once, whether the charge's answer or the gateway's
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
        'For the customer’s own Active or Past Due loan (else 409 `invalid_loan_status`; another customer’s: 404), at ' +
        'most what it owes (400 `repayment_exceeds_balance` naming `amount`). `card`: the default card is charged ' +
        '(409 `no_card` without one, `card_not_active` for a card not saved); 201 `paid` (booked at once) or ' +
        '`declined` (nothing charged). `bankTransfer`: 202 `pending` with `reference` (the IDN to quote), `iban`, ' +
        '`beneficiary` and `expiresAt`; booked when the gateway’s statement import settles it. 202 `charging` / ' +
        '`registering` when the gateway has not answered within 20 s (the call goes on). 502 `collect_gateway_refused` ' +
        'when the gateway refused the payment. 409 `collect_merchant_not_configured`, `repayment_currency_unsupported` ' +
        '(the gateway takes BGN, EUR and USD).',
      security: lendingSecurity.user,
      request: { body: jsonBody(submissionBody) },
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
    const held = await submitRepayment(c.get('deps'), customerCaller(c), c.req.valid('json'));
    const settled = held.status === 'paid' || held.status === 'declined';
    return c.json(held, settled ? 201 : 202);
  },
});
