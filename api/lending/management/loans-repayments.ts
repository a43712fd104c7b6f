import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { lendingPath } from '../paths.ts';
import { repaymentAnswerSchema, repaymentErrorResponses, repaymentFields } from '../repayment-schemas.ts';

const repaymentBody = z
  .object({
    loanId: z.string().min(1).max(40).openapi({ example: '482913675' }),
    ...repaymentFields,
    reference: z.string().trim().min(1).max(100).optional().openapi({
      description:
        'The client’s reference: a repeated POST with the same reference for the loan answers the first repayment (200)',
      example: 'bank-stmt-2026-03-10-0042',
    }),
  })
  .openapi('RepaymentRegistration');

/**
 * `POST /Management/Loans/Repayments`: registers a repayment of an Active or Past Due loan (an Update of
 * its workflow, answered once recorded). The allocation and the status that follows: decision 0043.
 */
export const managementLoansRepaymentsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/Repayments'),
      tags: ['Management loans'],
      summary: 'Register a repayment',
      description:
        'Only for an Active or Past Due loan (else 409 `invalid_loan_status`). `mode` defaults to Regular payment ' +
        '(fees, interest, then principal of the oldest instalment first); Early repayment pays principal from the ' +
        'last instalment backwards. Paying every overdue amount brings a Past Due loan back to Active; paying ' +
        'everything makes it Repaid. More than the loan owes: 400 `repayment_exceeds_balance`.',
      security: lendingSecurity.apiKey,
      request: { body: jsonBody(repaymentBody) },
      responses: {
        201: {
          description: 'Registered',
          content: { 'application/json': { schema: repaymentAnswerSchema } },
        },
        200: {
          description: 'A repeated reference: the first repayment',
          content: { 'application/json': { schema: repaymentAnswerSchema } },
        },
        ...repaymentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { created, ...answer } = await lending.registerRepayment(c.get('deps'), {
      caller: managementCaller(c),
      ...c.req.valid('json'),
    });
    return created ? c.json(answer, 201) : c.json(answer, 200);
  },
});
