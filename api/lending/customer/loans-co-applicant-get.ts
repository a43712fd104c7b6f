import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { coApplicantSchema, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

export const coApplicantAnswerSchema = z
  .object({ loanId: z.string(), coApplicant: coApplicantSchema.nullable() })
  .openapi('LoanCoApplicant');

/** `GET /Customer/Loans/{loanId}/CoApplicant`: the loan's co-applicant (null when there is none). */
export const coApplicantGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/CoApplicant'),
      tags: ['Customer loans'],
      summary: 'The co-applicant',
      description: 'The loan’s co-applicant, or null. Readable in every status.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'The co-applicant',
          content: { 'application/json': { schema: coApplicantAnswerSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    return c.json(
      await lending.coApplicantOf(c.get('deps'), {
        caller: customerCaller(c),
        loanId: c.req.valid('param').loanId,
      }),
      200,
    );
  },
});
