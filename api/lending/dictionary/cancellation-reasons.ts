import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { cancellationReasonSchema } from '../dictionary-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Dictionary/CancellationReasons`: the reasons a customer may give (front-office visible only). */
export const dictionaryCancellationReasonsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Dictionary/CancellationReasons'),
      tags: ['Dictionary'],
      summary: 'Cancellation reasons visible in the front office',
      description: 'The `reasonId` of Customer/Loans/{loanId}/Cancel is one of these.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The reasons',
          content: { 'application/json': { schema: z.object({ items: z.array(cancellationReasonSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      {
        items: await lending.frontOfficeCancellationReasons(c.get('deps'), {
          tenantId: c.get('lendingTenant').id,
        }),
      },
      200,
    ),
});
