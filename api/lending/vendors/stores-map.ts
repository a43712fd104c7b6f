import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { storeAnswerSchema } from '../reference-data-schemas.ts';

const BOX = ['south', 'west', 'north', 'east'] as const;
const coordinate = (bound: number, description: string) =>
  z.coerce.number().min(-bound).max(bound).optional().openapi({ description });

const querySchema = z
  .object({
    south: coordinate(90, 'Bounding box: southern latitude (all four bounds or none)'),
    west: coordinate(180, 'Bounding box: western longitude (greater than `east`: across the antimeridian)'),
    north: coordinate(90, 'Bounding box: northern latitude'),
    east: coordinate(180, 'Bounding box: eastern longitude'),
    vendorId: z.string().min(1).max(100).optional().openapi({ description: 'Stores of this vendor only' }),
  })
  .superRefine((query, context) => {
    const given = BOX.filter((bound) => query[bound] !== undefined);
    if (given.length > 0 && given.length < BOX.length) {
      for (const bound of BOX.filter((name) => query[name] === undefined)) {
        context.addIssue({ code: 'custom', path: [bound], message: 'a bounding box needs all four bounds' });
      }
    }
    if (query.south !== undefined && query.north !== undefined && query.south > query.north) {
      context.addIssue({ code: 'custom', path: ['south'], message: 'must not be north of `north`' });
    }
  });

/** `GET /Vendors/StoresMap`: stores with their coordinates, for a map. */
export const vendorsStoresMapOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Vendors/StoresMap'),
      tags: ['Vendors'],
      summary: 'Stores for a map',
      description:
        'The active stores of the tenant’s active vendors with coordinates (WGS 84 degrees) and the vendor’s name; ' +
        'inside the bounding box `south`, `west`, `north`, `east` when given (400 naming a missing bound), of ' +
        '`vendorId` when given.',
      security: lendingSecurity.apiKey,
      request: { query: querySchema },
      responses: {
        200: {
          description: 'The stores',
          content: {
            'application/json': {
              schema: z.object({ stores: z.array(storeAnswerSchema.extend({ vendorName: z.string() })) }),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { south, west, north, east, vendorId } = c.req.valid('query');
    const box =
      south !== undefined && west !== undefined && north !== undefined && east !== undefined
        ? { south, west, north, east }
        : undefined;
    return c.json(
      {
        stores: await lending.storesMap(c.get('deps'), {
          tenantId: c.get('lendingTenant').id,
          ...{ box, vendorId },
        }),
      },
      200,
    );
  },
});
