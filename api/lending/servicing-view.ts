import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanServicing } from '../../db/schema/lending-servicing.ts';
import { daysPastDue, repaymentModes } from '../../domain/lending/servicing.ts';

/**
 * A paid-out loan's servicing as the API answers it (decision 0043): from the read model the loan
 * workflow writes (lending_loan_servicing); days past due are counted to today.
 */

const amount = z.string().openapi({ example: '128.50' });

export const repaymentSchema = z
  .object({
    id: z.string().openapi({ description: 'The repayment id (Management/Loans/Repayments/{id})' }),
    amount,
    date: z.string().openapi({ example: '2026-03-10' }),
    mode: z.enum(repaymentModes),
    reference: z.string().nullable(),
    reversed: z.boolean(),
  })
  .openapi('Repayment');

export const servicingSchema = z
  .object({
    status: z.enum(['current', 'overdue', 'repaid']),
    daysPastDue: z
      .number()
      .int()
      .openapi({ description: 'Days since the oldest overdue due date (0 if none)' }),
    pastDueSince: z.string().nullable(),
    overdueAmount: amount,
    dueNow: amount.openapi({ description: 'Unpaid amount of every instalment due today or before' }),
    payoffAmount: amount.openapi({ description: 'Everything still owed' }),
    outstandingPrincipal: amount,
    paidTotal: amount,
    nextDueDate: z.string().nullable(),
    nextDueAmount: amount.nullable(),
    asOf: z.string().openapi({ description: 'When the loan last assessed its position' }),
    instalments: z.array(
      z.object({
        number: z.number().int(),
        dueDate: z.string(),
        principal: amount,
        interest: amount,
        fee: amount,
        total: amount,
        paid: amount,
        outstanding: amount,
        overdue: z.boolean(),
      }),
    ),
    repayments: z.array(repaymentSchema),
  })
  .openapi('LoanServicing');
export type ServicingView = z.infer<typeof servicingSchema>;

/** The loan's servicing, or null before it is paid out. */
export async function servicingView(
  db: Database,
  tenantId: string,
  loanId: string,
  today = new Date().toISOString().slice(0, 10),
): Promise<ServicingView | null> {
  const [row] = await db
    .select({ servicing: lendingLoanServicing.servicing })
    .from(lendingLoanServicing)
    .where(and(eq(lendingLoanServicing.tenantId, tenantId), eq(lendingLoanServicing.loanId, loanId)))
    .limit(1);
  if (!row) return null;
  const { schedule, repayments, position } = row.servicing;
  return {
    status: position.state,
    daysPastDue: daysPastDue(position, today),
    pastDueSince: position.pastDueSince,
    overdueAmount: position.overdueAmount,
    dueNow: position.dueNow,
    payoffAmount: position.payoffAmount,
    outstandingPrincipal: position.outstandingPrincipal,
    paidTotal: position.paidTotal,
    nextDueDate: position.nextDueDate,
    nextDueAmount: position.nextDueAmount,
    asOf: position.asOf,
    instalments: schedule.map((instalment, index) => {
      const held = position.instalments[index];
      return {
        ...instalment,
        paid: held?.paid ?? '0',
        outstanding: held?.outstanding ?? instalment.total,
        overdue: held?.overdue ?? false,
      };
    }),
    repayments: repayments.map(({ repaymentId, ...repayment }) => ({ id: repaymentId, ...repayment })),
  };
}
