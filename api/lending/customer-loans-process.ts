import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { detailsCompletedUpdate, processUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import type { LendingEnv } from './context.ts';
import { readCustomer } from './customer-records.ts';
import {
  actorOf,
  customerLoan,
  type LoanRow,
  loanAnswer,
  loanIdParams,
  loanView,
  moveLoan,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

export const commentsQuery = z.object({
  comments: z.string().max(2000).optional().openapi({ example: 'All documents attached' }),
});

/**
 * Process (customer or management): only from Origination or Reprocessing (and, by design, Collateral
 * once a collateral is registered). A secured loan goes to Collateral; otherwise the credit bureau
 * decides, and the answer comes once the request is recorded (the decision follows in the loan). A
 * loan still in Pre-Origination whose customer's details are complete by now is first moved on (a
 * missed `detailsCompleted`).
 */
export async function sendForProcessing(c: Context<LendingEnv>, row: LoanRow, comments: string | undefined) {
  const deps = c.get('deps');
  const customer = await readCustomer(deps.db, row.tenantId, row.customerId, deps.config);
  let loan = row;
  if (loan.status === 'Pre-Origination' && customer?.detailsComplete) {
    loan = await moveLoan(deps, loan, 'detailsCompleted', (handle) =>
      handle.executeUpdate(detailsCompletedUpdate),
    );
  }
  const details = customer?.details ?? {};
  // What the bureau is asked about (it reaches the workflow's history: see docs/lending.md, Credit bureau).
  const applicant = {
    firstName: details.firstName ?? '',
    lastName: details.lastName ?? '',
    ...(details.ssn ? { ssn: details.ssn } : {}),
    ...(details.birthDate ? { birthDate: details.birthDate } : {}),
  };
  return moveLoan(deps, loan, 'process', (handle) =>
    handle.executeUpdate(processUpdate, { args: [{ by: actorOf(c), comments, applicant }] }),
  );
}

/** `POST /Customer/Loans/{loanId}/Process?comments=`: sends the customer's loan for processing. */
export const customerLoansProcessOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Process'),
      tags: ['Customer loans'],
      summary: 'Send the loan for processing',
      description:
        'Only in Origination or Reprocessing (or Collateral once a collateral is registered); else 409 ' +
        '`invalid_loan_status` naming the current status. A secured loan goes to Collateral; an unsecured one is ' +
        'decided by the credit bureau: Offer confirmation, Rejected, or Waiting for approval (referred, or the ' +
        'bureau did not answer). Answers at once, once the request is recorded: the loan in Collateral, or still in ' +
        'its status with the decision pending (a second Process meanwhile is 409 `decision_in_progress`). The ' +
        'decision arrives through the loan: poll `GET Customer/Loans/{loanId}` for its next status.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, query: commentsQuery },
      responses: loanAnswer('The loan after processing'),
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const moved = await sendForProcessing(c, row, c.req.valid('query').comments);
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
