import { z } from '@hono/zod-openapi';
import { decimalAmount } from '../../domain/decimal-amount.ts';
import { repaymentModes } from '../../domain/lending/servicing.ts';
import { loanErrorResponses, loanSchema, repaymentSchema } from './loan-schemas.ts';

/** Repayments as the API takes and answers them (the use cases: application/lending/repayments.ts). */

const amount = decimalAmount({ decimals: 6, example: '150.00' }).openapi({ example: '150.00' });

/** What a repayment's amount, date and mode are in a POST or PUT. */
export const repaymentFields = {
  amount,
  date: z.iso.date().optional().openapi({
    description: 'When the money was received (default today, UTC); not in the future',
    example: '2026-03-10',
  }),
  mode: z
    .enum(repaymentModes)
    .default('Regular payment')
    .openapi({
      description:
        '`Regular payment` (default): fees, interest, then principal of the oldest instalment first; ' +
        '`Early repayment`: principal only, from the last instalment backwards (decision 0043)',
    }),
};

export const repaymentAnswerSchema = z
  .object({ repayment: repaymentSchema, loan: loanSchema })
  .openapi('RepaymentAnswer');

export const repaymentErrorResponses = {
  ...loanErrorResponses,
  400: {
    ...loanErrorResponses[400],
    description:
      'Invalid body, or `repayment_exceeds_balance` (naming `amount`): the repayment pays more than the loan owes',
  },
} as const;

export const repaymentIdParams = z.object({
  id: z
    .string()
    .max(40)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'rpm_3f2a9c1d7e5b4a60' }),
});
