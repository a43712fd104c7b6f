import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import {
  dictionaryNameParam,
  dictionaryValueAnswerSchema,
  referenceCodeSchema,
} from '../reference-data-schemas.ts';

const filterSchema = z
  .object({
    name: dictionaryNameParam.openapi({ description: 'The dictionary' }),
    parentCode: referenceCodeSchema().optional().openapi({
      description: 'Values under this value of the parent dictionary (the cities of a region)',
      example: 'TX',
    }),
    startsWith: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Values whose name starts with this, ignoring case', example: 'So' }),
    codes: z
      .array(referenceCodeSchema())
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: 'Values of these codes only', example: ['austin'] }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(500)
      .default(100)
      .openapi({ description: 'At most this many (default 100)' }),
  })
  .strict()
  .openapi('DictionaryFilter');

/** `POST /Dictionary/GetFilteredValues`: one dictionary's values that pass a filter. */
export const dictionaryGetFilteredValuesOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Dictionary/GetFilteredValues'),
      tags: ['Dictionary'],
      summary: 'Values filtered by a passed filter',
      description:
        'The values of dictionary `name` that pass every criterion given: `parentCode` (its values under a value of ' +
        'the parent dictionary, e.g. the Cities of a Region), `startsWith` (name prefix, ignoring case), `codes`; ' +
        'in display order, at most `limit`, `more` when more pass. 400 names `name` when the tenant has no such ' +
        'dictionary, `parentCode` when it has no parent.',
      security: lendingSecurity.apiKey,
      request: { body: jsonBody(filterSchema) },
      responses: {
        200: {
          description: 'The values',
          content: {
            'application/json': {
              schema: z
                .object({
                  name: z.string(),
                  parent: z.string().nullable(),
                  values: z.array(dictionaryValueAnswerSchema),
                  more: z.boolean().openapi({ description: 'More values pass than `limit`' }),
                })
                .openapi('FilteredDictionaryValues'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.filteredDictionaryValues(c.get('deps'), {
        tenantId: c.get('lendingTenant').id,
        ...c.req.valid('json'),
      }),
      200,
    ),
});
