import { createRoute, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { cancelUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { findCancellationReason } from './dictionary-records.ts';
import {
  actorOf,
  customerLoan,
  loanAnswer,
  loanIdParams,
  loanView,
  moveLoan,
  refuseOutsideStatuses,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Customer/Loans/{loanId}/Cancel?reasonId=&comments=`: cancels on the customer's request, with a
 * front-office cancellation reason (Dictionary/CancellationReasons), in any status before the money is
 * paid out (design: up to Approved).
 */
export const loansCancelOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Cancel'),
      tags: ['Customer loans'],
      summary: 'Cancel the loan',
      description:
        '`reasonId` (required) is a reason of Dictionary/CancellationReasons (400 names it otherwise). Allowed from ' +
        'Pre-Origination up to Approved; else 409 `invalid_loan_status`. The loan is closed as Cancelled.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({
          reasonId: z.string().min(1).max(100).openapi({ example: 'crs_0b6f3c9e2d1a4f5b8c7e6d5a' }),
          comments: z.string().max(2000).optional().openapi({ example: 'Found a better rate' }),
        }),
      },
      responses: loanAnswer('The loan, closed as Cancelled'),
    }),
  handler: () => async (c) => {
    const { db } = c.get('deps');
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    refuseOutsideStatuses(row, 'cancel');
    const { reasonId, comments } = c.req.valid('query');
    const reason = await findCancellationReason(db, row.tenantId, reasonId);
    if (!reason?.frontOffice)
      throw Refusal.field('reasonId', 'not a cancellation reason of Dictionary/CancellationReasons');
    const moved = await moveLoan(c.get('deps'), row, 'cancel', (loan) =>
      loan.executeUpdate(cancelUpdate, { args: [{ by: actorOf(c), reasonId: reason.id, comments }] }),
    );
    return c.json(await loanView(db, moved, 'customer'), 200);
  },
});
