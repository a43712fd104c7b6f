import { createRoute, z } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { coApplicantSchema, customerLoan, loanIdParams } from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    return c.json({ loanId: row.loanId, coApplicant: row.coApplicant ?? null }, 200);
  },
});
