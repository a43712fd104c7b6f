import { createRoute, z } from '@hono/zod-openapi';
import { and, asc, count, eq, gte, lt, sum } from 'drizzle-orm';
import { obBanks } from '../../db/schema/openbanking.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { decimalOf, PAYMENT_STATUSES, type PaymentStatus } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { dayRange } from './payment-search.ts';
import { MAX_REPORT_DAYS, periodRules, reportPeriodFields } from './reports-active-users.ts';

/**
 * `GET /api/9/audit-by-bank?dateFrom=&dateTo=`: the agent's own payments (single and bulk entries)
 * created in the period, counted and summed per bank and currency, in all and by status. Amounts of
 * different currencies are never added together.
 */

const figures = z.object({
  count: z.number().int(),
  amount: z.string().openapi({ description: 'Sum of the amounts', example: '1250.00' }),
});

const auditSchema = z
  .object({
    dateFrom: z.string(),
    dateTo: z.string(),
    banks: z.array(
      z.object({
        bankHash: z.string(),
        bankName: z.string(),
        currencies: z.array(
          figures.extend({
            currency: z.string(),
            confirmed: figures.openapi({ description: 'CONFIRMED: the money moved' }),
            failed: figures,
            waiting: figures,
          }),
        ),
      }),
    ),
  })
  .openapi('AuditByBank');

type Currency = z.infer<typeof auditSchema>['banks'][number]['currencies'][number];

export const auditByBankOperation = defineOperation({
  versions: [9],
  route: () =>
    createRoute({
      method: 'get',
      path: '/audit-by-bank',
      operationId: 'auditByBank',
      tags: ['Reports'],
      summary: 'Payment audit per bank: count and sum',
      description:
        'The agent’s payments (single and bulk entries) created from `dateFrom` to `dateTo` (UTC days, inclusive, ' +
        `both required, at most ${MAX_REPORT_DAYS} days), per bank and currency: how many and their sum, in all and ` +
        'by status (CONFIRMED, FAILED, WAITING). Banks by name; only banks with payments are listed.',
      security: AGENT_SECURITY,
      request: { query: periodRules(z.object(reportPeriodFields)) },
      responses: {
        200: { description: 'The audit', content: { 'application/json': { schema: auditSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { dateFrom, dateTo } = c.req.valid('query');
    const { from, to } = dayRange(dateFrom, dateTo);
    const rows = await c
      .get('deps')
      .db.select({
        bankHash: obPayments.bankHash,
        bankName: obBanks.name,
        currency: obPayments.currency,
        status: obPayments.status,
        count: count(),
        amountMinor: sum(obPayments.amountMinor),
      })
      .from(obPayments)
      .innerJoin(obBanks, eq(obBanks.bankHash, obPayments.bankHash))
      .where(
        and(eq(obPayments.agentId, agentId), gte(obPayments.createdAt, from), lt(obPayments.createdAt, to)),
      )
      .groupBy(obPayments.bankHash, obBanks.name, obPayments.currency, obPayments.status)
      .orderBy(asc(obBanks.name), asc(obPayments.bankHash), asc(obPayments.currency));

    const banks = new Map<
      string,
      { bankHash: string; bankName: string; currencies: Map<string, Record<string, number>> }
    >();
    for (const row of rows) {
      const bank = banks.get(row.bankHash) ?? {
        bankHash: row.bankHash,
        bankName: row.bankName,
        currencies: new Map(),
      };
      banks.set(row.bankHash, bank);
      const totals = bank.currencies.get(row.currency) ?? {};
      bank.currencies.set(row.currency, totals);
      totals[`${row.status}:count`] = row.count;
      totals[`${row.status}:amount`] = Number(row.amountMinor ?? 0);
    }
    const figuresOf = (totals: Record<string, number>, statuses: readonly PaymentStatus[]) => ({
      count: statuses.reduce((total, status) => total + (totals[`${status}:count`] ?? 0), 0),
      amount: decimalOf(statuses.reduce((total, status) => total + (totals[`${status}:amount`] ?? 0), 0)),
    });
    return c.json(
      {
        dateFrom,
        dateTo,
        banks: [...banks.values()].map((bank) => ({
          bankHash: bank.bankHash,
          bankName: bank.bankName,
          currencies: [...bank.currencies.entries()].map(
            ([currency, totals]): Currency => ({
              currency,
              ...figuresOf(totals, PAYMENT_STATUSES),
              confirmed: figuresOf(totals, ['CONFIRMED']),
              failed: figuresOf(totals, ['FAILED']),
              waiting: figuresOf(totals, ['WAITING']),
            }),
          ),
        })),
      },
      200,
    );
  },
});
