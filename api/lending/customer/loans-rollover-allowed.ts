import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    return c.json(
      await lending.rolloverAllowed(c.get('deps'), {
        caller: customerCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});
