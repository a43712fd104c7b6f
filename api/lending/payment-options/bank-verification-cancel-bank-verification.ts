import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { bankVerificationSchema, verifyingCustomer } from '../bank-verification-schemas.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';
import { bankVerificationErrors } from '../payment-option-schemas.ts';

/** `POST /PaymentOptions/BankVerification/CancelBankVerification/{loanId}?reason=`: skips it, recorded. */
export const cancelBankVerificationOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/BankVerification/CancelBankVerification/{loanId}'),
      tags: ['Payment options'],
      summary: 'Skip the bank verification of a loan',
      description:
        '`reason` (required) is recorded; the verification becomes `skipped` (a pending consent is left to lapse ' +
        'at the gateway). A verified loan: 409 `bank_verification_completed`. Another customer’s loan: 404.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({
          reason: z.string().trim().min(1).max(500).openapi({ example: 'Customer has no online banking' }),
        }),
      },
      responses: {
        200: { description: 'Skipped', content: { 'application/json': { schema: bankVerificationSchema } } },
        ...lendingErrorResponses,
        ...bankVerificationErrors,
      },
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    const { reason } = c.req.valid('query');
    return c.json(
      await lending.skipVerification(c.get('deps'), { customer: verifyingCustomer(c), loanId, reason }),
      200,
    );
  },
});
