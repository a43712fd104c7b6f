import { randomBytes } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { lendingLoanRepayments } from '../../db/schema/lending-servicing.ts';
import type { LoanSnapshot } from '../../domain/lending/loan-process.ts';
import { repaymentModes } from '../../domain/lending/servicing.ts';
import type { LendingEnv } from './context.ts';
import { todayUtc } from './credit-product-records.ts';
import { type LoanRow, loanErrorResponses, loanSchema, tenantLoan } from './loan-records.ts';
import { repaymentSchema } from './servicing-view.ts';

/**
 * Repayments for the API (decision 0043): Management/Loans/Repayments registers, edits and reverses
 * them as Updates of the loan's workflow; the read model (lending_loan_repayments) finds a repayment's
 * loan by its id and a repeated registration by its reference.
 */

export type RepaymentRow = typeof lendingLoanRepayments.$inferSelect;

/** A repayment id: unique per tenant (random, 64 bits). */
export const newRepaymentId = () => `rpm_${randomBytes(8).toString('hex')}`;

const amount = z
  .string()
  .trim()
  .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a positive decimal amount like 150.00')
  .refine((text) => Number(text) > 0, 'must be more than 0')
  .openapi({ example: '150.00' });

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

/** The date of a repayment: today by default, never in the future nor before the disbursement. */
export function repaymentDate(row: LoanRow, date: string | undefined): string {
  const today = todayUtc();
  const chosen = date ?? today;
  if (chosen > today) throw Refusal.field('date', 'must not be in the future');
  if (row.disbursement && chosen < row.disbursement.date)
    throw Refusal.field('date', `must not be before the disbursement (${row.disbursement.date})`);
  return chosen;
}

export async function findRepayment(
  db: Database,
  tenantId: string,
  where: { repaymentId: string } | { loanId: string; reference: string },
): Promise<RepaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingLoanRepayments)
    .where(
      'repaymentId' in where
        ? and(
            eq(lendingLoanRepayments.tenantId, tenantId),
            eq(lendingLoanRepayments.repaymentId, where.repaymentId),
          )
        : and(
            eq(lendingLoanRepayments.tenantId, tenantId),
            eq(lendingLoanRepayments.loanId, where.loanId),
            eq(lendingLoanRepayments.reference, where.reference),
          ),
    )
    .limit(1);
  return row;
}

/** A repayment of the key's tenant and its loan: 404 for an unknown one or another tenant's. */
export async function tenantRepayment(
  c: Context<LendingEnv>,
  repaymentId: string,
): Promise<{ repayment: RepaymentRow; loan: LoanRow }> {
  const repayment = await findRepayment(c.get('deps').db, c.get('lendingTenant').id, { repaymentId });
  if (!repayment) throw Refusal.notFound('Repayment');
  return { repayment, loan: await tenantLoan(c, repayment.loanId) };
}

/** The repayment as the loan now holds it (from the Update's answer). */
export function repaymentIn(
  snapshot: LoanSnapshot | undefined,
  match: { repaymentId: string; reference?: string | undefined },
) {
  const held = snapshot?.servicing?.repayments.find(
    (repayment) =>
      repayment.repaymentId === match.repaymentId ||
      (match.reference !== undefined && repayment.reference === match.reference),
  );
  if (!held) throw new Error(`repayment ${match.repaymentId} is not in the loan's answer`);
  const { repaymentId, ...rest } = held;
  return { id: repaymentId, ...rest };
}

export const repaymentIdParams = z.object({
  id: z
    .string()
    .max(40)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'rpm_3f2a9c1d7e5b4a60' }),
});
