import { createRoute, z } from '@hono/zod-openapi';
import { stepOf } from '../../domain/lending/loan-lifecycle.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { customerLoan, loanIdParams } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `GET /Customer/Loans/{loanId}/Rollover/Allowed`: whether POST Rollover would be accepted now. */
export const rolloverAllowedOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/Rollover/Allowed'),
      tags: ['Customer loans'],
      summary: 'Whether a rollover can be requested',
      description:
        'true for an Active or Past Due loan without a pending rollover request; otherwise false with the reason.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'Whether a rollover can be requested',
          content: {
            'application/json': {
              schema: z
                .object({
                  loanId: z.string(),
                  allowed: z.boolean(),
                  reason: z.string().nullable().openapi({ example: null }),
                })
                .openapi('RolloverAllowed'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const step = stepOf('requestRollover', row.status, { rolloverRequested: row.rolloverRequested });
    return c.json(
      { loanId: row.loanId, allowed: step.allowed, reason: step.allowed ? null : step.message },
      200,
    );
  },
});
