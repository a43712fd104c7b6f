import { createRoute, z } from '@hono/zod-openapi';
import { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import { lendingLoans } from '../../db/schema/lending-loans.ts';
import { minorUnitDigits } from '../../domain/lending/credit-products.ts';
import { isClosed, loanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { lendingPath } from './paths.ts';

const SERVICED = new Set(['Active', 'Past Due']);

/**
 * `GET /Customer/AccountSummary`: the current customer's loans at a glance: how many are open, closed,
 * in each status, and the principal paid out on loans being repaid, per currency (design; balances
 * after repayments come with servicing).
 */
export const customerAccountSummaryOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/AccountSummary'),
      tags: ['Customer'],
      summary: 'Summary of the customer’s account',
      description:
        'Counts of the customer’s loans (open, closed, by status) and the principal paid out on Active and Past Due ' +
        'loans per currency.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The summary',
          content: {
            'application/json': {
              schema: z
                .object({
                  customerId: z.string(),
                  openLoans: z.number().int(),
                  closedLoans: z.number().int(),
                  loansByStatus: z.partialRecord(z.enum(loanStatuses), z.number().int()),
                  disbursedPrincipal: z
                    .array(z.object({ currency: z.string(), amount: z.string() }))
                    .openapi({ description: 'Per currency: amounts of Active and Past Due loans' }),
                  pastDue: z.boolean().openapi({ description: 'Whether any loan is Past Due' }),
                })
                .openapi('AccountSummary'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { db } = c.get('deps');
    const { customerId } = requireCustomer(c);
    const rows = await db
      .select({ status: lendingLoans.status, amount: lendingLoans.amount, currency: lendingLoans.currency })
      .from(lendingLoans)
      .where(
        and(eq(lendingLoans.tenantId, c.get('lendingTenant').id), eq(lendingLoans.customerId, customerId)),
      );
    const loansByStatus: Partial<Record<(typeof loanStatuses)[number], number>> = {};
    const disbursed = new Map<string, Decimal>();
    for (const row of rows) {
      loansByStatus[row.status] = (loansByStatus[row.status] ?? 0) + 1;
      if (SERVICED.has(row.status)) {
        disbursed.set(row.currency, (disbursed.get(row.currency) ?? new Decimal(0)).plus(row.amount));
      }
    }
    const closed = rows.filter((row) => isClosed(row.status)).length;
    return c.json(
      {
        customerId,
        openLoans: rows.length - closed,
        closedLoans: closed,
        loansByStatus,
        disbursedPrincipal: [...disbursed].map(([currency, amount]) => ({
          currency,
          amount: amount.toFixed(minorUnitDigits(currency)),
        })),
        pastDue: rows.some((row) => row.status === 'Past Due'),
      },
      200,
    );
  },
});
