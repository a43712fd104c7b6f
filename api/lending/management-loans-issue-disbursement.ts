import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Refusal } from '../../application/shared/refusal.ts';
import { PAYOUT_CURRENCIES, recipientOf } from '../../domain/lending/disbursement.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import { issueDisbursementUpdate, type LoanSnapshot } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { requireCollectMerchant } from './collect-merchant-records.ts';
import { readCustomer } from './customer-records.ts';
import {
  actorOf,
  loanErrorResponses,
  loanIdParams,
  loanSchema,
  loanView,
  moveLoan,
  refuseOutsideStatuses,
  tenantLoan,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Management/Loans/{loanId}/IssueDisbursement?amount=`: pays an Approved loan out as a cash payout
 * registered at the payment-collection gateway (decision 0041), through its public merchant interface
 * with the tenant's merchant credentials; the customer collects it at a cash desk with their name and
 * national id. The loan stays Approved until the gateway notifies the payout: PAID → Active with the
 * disbursement registered, EXPIRED → IssueDisbursement again (api/lending/collect-notifications.ts).
 */

const payoutSchema = z
  .object({
    invoice: z
      .string()
      .openapi({ description: 'The INVOICE at the gateway', example: 'ten_1f2e3d4c5b6a7988-482913675-1' }),
    idn: z.string().nullable().openapi({
      description:
        'The IDN (SYS_CODE) the customer quotes at the cash desk; null while it is being registered',
      example: '4123456789',
    }),
    status: z.enum(['registering', 'pending', 'paid', 'expired', 'failed']).openapi({
      description:
        '`pending`: collectable at a cash desk until `expTime`; `registering`: the gateway has not answered yet',
    }),
    amount: z.string().openapi({ example: '5000.00' }),
    currency: z.string().openapi({ example: 'EUR' }),
    expTime: z
      .string()
      .nullable()
      .openapi({ description: 'Europe/Sofia, DD.MM.YYYY hh:mm:ss', example: '01.08.2027 23:59:59' }),
  })
  .openapi('DisbursementPayout');

export const managementLoansIssueDisbursementOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/{loanId}/IssueDisbursement'),
      tags: ['Management loans'],
      summary: 'Pay the loan out through the collection gateway (cash payout)',
      description:
        'Only for an Approved loan (else 409 `invalid_loan_status`), `amount` equal to the loan amount (else 400 ' +
        '`disbursement_amount_mismatch`), one open payout at a time (409 `disbursement_in_progress`). The tenant must ' +
        'be a merchant of the collection gateway (409 `collect_merchant_not_configured`), the loan in BGN, EUR or USD ' +
        '(409 `payout_currency_unsupported`) and the customer’s name and ssn (or driver’s licence) usable by a cash ' +
        'desk (409 `payout_recipient_invalid` naming the detail). Answers 202 once the payout is registered: the loan ' +
        '(still Approved) and the payout, whose `idn` the customer quotes at the desk. 502 `payout_refused` when the ' +
        'gateway refuses it (the loan stays Approved). Collected → Active; expired → Approved with the reason in ' +
        '`statusHistory`, and it may be issued again.',
      security: lendingSecurity.apiKey,
      request: {
        params: loanIdParams,
        query: z.object({
          amount: z
            .string()
            .trim()
            .regex(/^\d{1,15}(\.\d+)?$/, 'must be a decimal amount like 1500.00')
            .openapi({ example: '5000.00' }),
        }),
      },
      responses: {
        202: {
          description: 'The payout is registered (or being registered); the loan waits for it in Approved',
          content: { 'application/json': { schema: loanSchema.extend({ payout: payoutSchema }) } },
        },
        ...loanErrorResponses,
        502: { description: '`payout_refused`', content: loanErrorResponses[409].content },
      },
    }),
  handler: () => async (c) => {
    const { db, config } = c.get('deps');
    const tenant = c.get('lendingTenant');
    const row = await tenantLoan(c, c.req.valid('param').loanId);
    const { amount } = c.req.valid('query');
    refuseOutsideStatuses(row, 'issueDisbursement');
    await requireCollectMerchant(db, config, tenant.id);
    if (!PAYOUT_CURRENCIES.includes(row.currency))
      throw Refusal.conflict(
        'payout_currency_unsupported',
        `The collection gateway pays out ${PAYOUT_CURRENCIES.join(', ')}; the loan is in ${row.currency}`,
      );
    const customer = await readCustomer(db, tenant.id, row.customerId, config);
    const recipient = customer ? recipientOf(customer.details) : undefined;
    if (!recipient?.ok) {
      const field = recipient?.field ?? 'customerId';
      const message = recipient?.message ?? 'the loan’s customer is not found';
      throw new Refusal(409, 'payout_recipient_invalid', message, [{ field, message }]);
    }
    let answered: LoanSnapshot | undefined;
    const moved = await moveLoan(c.get('deps'), row, 'issueDisbursement', async (loan) => {
      try {
        answered = await loan.executeUpdate(issueDisbursementUpdate, {
          args: [{ by: actorOf(c), amount, recipient: recipient.recipient }],
        });
        return answered;
      } catch (error) {
        // The refusals only this operation has; the others are moveLoan's.
        const failure = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
        if (failure instanceof ApplicationFailure && failure.type === LoanRefusal.payoutRefused)
          throw new Refusal(502, LoanRefusal.payoutRefused, failure.message);
        throw error;
      }
    });
    const payout = answered?.payout;
    if (!payout) throw new Error(`loan ${row.loanId}: IssueDisbursement answered without its payout`);
    const view = await loanView(db, moved, 'management');
    return c.json(
      {
        ...view,
        payout: {
          invoice: payout.invoice,
          idn: payout.idn,
          status: payout.state,
          amount: payout.amount,
          currency: payout.currency,
          expTime: payout.expTime,
        },
      },
      202,
    );
  },
});
