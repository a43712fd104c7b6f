import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import {
  bankVerificationResponses,
  verificationCaller,
  verifyingCustomer,
} from '../bank-verification-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /PaymentOptions/BankVerification/IsDataProcessed?loanId=` (optional): whether the verification passed. */
export const bankVerificationIsDataProcessedOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/PaymentOptions/BankVerification/IsDataProcessed'),
      tags: ['Payment options'],
      summary: 'Whether the bank verification passed',
      description:
        '`processed` once decided, `verified` when the consent is ACTIVE and the bank listed one of the customer’s ' +
        'bank accounts (PaymentOptions/BankAccounts) held in the customer’s name or the account’s holder name ' +
        '(decision 0042). A pending verification is looked up at the open-banking gateway on each call. `loanId` ' +
        '(optional, not in the spec): without it, the customer’s newest loan that is not closed, else their newest ' +
        'loan; a customer without any loan: `not_started` with `loanId` null.',
      security: lendingSecurity.user,
      request: {
        query: z.object({ loanId: z.string().min(1).max(40).optional().openapi({ example: '482913675' }) }),
      },
      responses: bankVerificationResponses,
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('query');
    const view = await lending.processVerification(c.get('deps'), {
      customer: verifyingCustomer(c),
      loanId,
      caller: verificationCaller(c),
    });
    return c.json(view, 200);
  },
});
