import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { dictionaryAnswerSchema, dictionaryNameParam } from '../reference-data-schemas.ts';

const body = z
  .object({
    names: z
      .array(dictionaryNameParam)
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'The dictionaries wanted; all of them when left out', example: ['Cities'] }),
  })
  .strict()
  .openapi('DictionaryGetValues');

/** `POST /Dictionary/GetValues`: the tenant's dictionaries (all, or those named) with their values. */
export const dictionaryGetValuesOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Dictionary/GetValues'),
      tags: ['Dictionary'],
      summary: 'Dictionary names with their values',
      description:
        'The tenant’s dictionaries (cities, employment types, loan purposes, … as the operator set them up) by ' +
        'name, each with its values in display order. The body is optional: `names` picks dictionaries; one ' +
        'the tenant does not have is 400 naming `names.<i>`.',
      security: lendingSecurity.apiKey,
      request: {
        body: { required: false, content: { 'application/json': { schema: body } } },
      },
      responses: {
        200: {
          description: 'The dictionaries',
          content: {
            'application/json': { schema: z.object({ dictionaries: z.array(dictionaryAnswerSchema) }) },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { names } = c.req.valid('json') ?? {};
    return c.json(
      await lending.dictionaryValues(c.get('deps'), { tenantId: c.get('lendingTenant').id, names }),
      200,
    );
  },
});
