import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import {
  bankVerificationSchema,
  verificationCaller,
  verifyingCustomer,
} from '../bank-verification-schemas.ts';
import { lendingPath } from '../paths.ts';
import { bankVerificationErrors } from '../payment-option-schemas.ts';

/**
 * `GET /PaymentOptions/BankVerification/Settings?loanId=&bankHash=` (`loanId` optional): what the front end needs to open the
 * verification frame (decision 0042). Without `bankHash`: the banks to choose from. With it: a one-shot
 * account-list consent at that bank for the customer (or the pending one whose frame is still open) and
 * `frameUrl`, the bank's SCA page.
 */
export const bankVerificationSettingsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/PaymentOptions/BankVerification/Settings'),
      tags: ['Payment options'],
      summary: 'Settings to open the bank verification frame',
      description:
        'Acts for the customer of the user token. `loanId` (optional, not in the spec; design: verification is per ' +
        'loan) must be the customer’s (else 404); without it, the customer’s newest loan that is not closed, else ' +
        'their newest loan; a customer without any loan gets `banks` with `loanId` null (409 `no_loan` with ' +
        '`bankHash`). Without `bankHash`: `banks` to choose from, and the pending verification’s frame if it ' +
        'is still open. With `bankHash`: starts an account-information consent (one-shot account list) through the ' +
        'open-banking gateway and answers `frameUrl`, the bank’s page where the customer logs in and approves; the ' +
        'same call again reuses it while it is open. A verified or skipped loan answers its outcome. Gateway ' +
        'unreachable: 503 `bank_verification_unavailable`.',
      security: lendingSecurity.user,
      request: {
        query: z.object({
          loanId: z.string().min(1).max(40).optional().openapi({ example: '482913675' }),
          bankHash: z
            .string()
            .regex(/^[0-9a-f]{24}$/, 'a bank hash of the open-banking gateway (24 hex digits)')
            .optional()
            .openapi({ example: '678a05c81f110e2bbecc1abf' }),
        }),
      },
      responses: {
        200: {
          description: 'The verification and what opens its frame',
          content: {
            'application/json': {
              schema: bankVerificationSchema
                .extend({
                  banks: z.array(z.object({ bankHash: z.string(), name: z.string(), country: z.string() })),
                })
                .openapi('BankVerificationSettings'),
            },
          },
        },
        ...lendingErrorResponses,
        ...bankVerificationErrors,
      },
    }),
  handler: () => async (c) => {
    const query = c.req.valid('query');
    return c.json(
      await lending.verificationSettings(c.get('deps'), {
        customer: verifyingCustomer(c),
        ...query,
        caller: verificationCaller(c),
      }),
      200,
    );
  },
});
