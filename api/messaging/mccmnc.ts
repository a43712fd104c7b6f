import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { MCCMNC_PAGE_SIZE } from '../../domain/messaging/reference-data.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { countryParam, mobileNetworkSchema, networkBody } from './reference-schemas.ts';

/** `GET /mccmnc/{country}`: the mobile networks (MCC/MNC) of a country, one page at a time. */
export const mccmncOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/mccmnc/{country}',
      tags: ['Reference data'],
      summary: 'MCC/MNC list of a country',
      description: `Mobile networks of a country, ordered by operator id, ${MCCMNC_PAGE_SIZE} per page. A page past the end has no items.`,
      request: {
        params: z.object({ country: countryParam }),
        query: z.object({
          Page: z
            .string()
            .regex(/^[1-9]\d{0,8}$/, 'must be a positive whole number (pages start at 1)')
            .optional()
            .openapi({ description: 'Page number, from 1; default 1', example: '1' }),
        }),
      },
      responses: {
        200: {
          description: 'One page of networks',
          content: {
            'application/json': {
              schema: z
                .object({
                  country: z.string().openapi({ description: 'The country, upper case', example: 'BG' }),
                  page: z.number().int().openapi({ description: 'This page, from 1', example: 1 }),
                  pageSize: z
                    .number()
                    .int()
                    .openapi({ description: 'Networks per page', example: MCCMNC_PAGE_SIZE }),
                  total: z
                    .number()
                    .int()
                    .openapi({ description: 'Networks of the country on all pages', example: 7 }),
                  items: z.array(mobileNetworkSchema),
                })
                .openapi('MobileNetworkPage'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => (c) => {
    const page = messaging.listNetworks(c.get('deps'), {
      country: c.req.valid('param').country,
      page: Number(c.req.valid('query').Page ?? '1'),
    });
    return c.json({ ...page, items: page.items.map(networkBody) }, 200);
  },
});
