import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { decimalAmount } from '../../../domain/decimal-amount.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { loanErrorResponses, loanIdParams, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Management/Loans/{loanId}/IssueDisbursement?amount=`: pays an Approved loan out as a cash payout
 * registered at the payment-collection gateway (decision 0041), through its public merchant interface
 * with the tenant's merchant credentials; the customer collects it at a cash desk with their name and
 * national id. The loan stays Approved until the gateway notifies the payout: PAID → Active with the
 * disbursement registered, EXPIRED → IssueDisbursement again (application/lending/collect-notifications.ts).
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
          amount: decimalAmount({ decimals: 6, example: '1500.00' }).openapi({ example: '5000.00' }),
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
    const { loanId } = c.req.valid('param');
    const { amount } = c.req.valid('query');
    return c.json(
      await lending.issueDisbursement(c.get('deps'), { caller: managementCaller(c), loanId, amount }),
      202,
    );
  },
});
