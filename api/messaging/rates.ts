import { createRoute, z } from '@hono/zod-openapi';
import { readRateCard } from '../../application/messaging/reference-data.ts';
import { ratesToCsv } from '../../domain/messaging/reference-data.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { countryParam } from './reference-schemas.ts';

/** `GET /rates/`: the rate card, as JSON or CSV. */

const rateSchema = z
  .object({
    countryIso: z
      .string()
      .openapi({ description: 'Destination country (ISO 3166-1 alpha-2)', example: 'BG' }),
    mcc: z.string().openapi({ description: 'Mobile country code', example: '284' }),
    mnc: z.string().openapi({ description: 'Mobile network code', example: '01' }),
    operatorId: z.string().openapi({ description: 'MCC + MNC', example: '28401' }),
    operator: z.string().openapi({ description: 'Destination network', example: 'A1 Bulgaria' }),
    smsPriceEur: z.string().openapi({
      description: 'Price of one SMS part in EUR, a decimal string with 4 decimals',
      example: '0.0250',
    }),
    chatappPriceEur: z.string().openapi({
      description: 'Price of one chat-app message in EUR, a decimal string with 4 decimals',
      example: '0.0100',
    }),
  })
  .openapi('Rate');

export const ratesOperation = defineMessagingOperation({
  // `/rates` answers too, for clients that drop the trailing slash; only the spec's path is documented.
  aliases: ['/rates'],
  route: () =>
    createRoute({
      method: 'get',
      path: '/rates/',
      tags: ['Reference data'],
      summary: 'Rates',
      description:
        'Price per destination network of an SMS part and of a chat-app message, in EUR. Prices are decimal ' +
        'strings, never floating-point numbers. `format=csv` returns the same lines as CSV with a header line.',
      request: {
        query: z.object({
          format: z
            .enum(['json', 'csv'])
            .default('json')
            .openapi({ description: 'json (default) or csv', example: 'json' }),
          country: countryParam
            .optional()
            .openapi({ description: 'Only this destination country', example: 'BG' }),
        }),
      },
      responses: {
        200: {
          description: 'The rates',
          content: {
            'application/json': {
              schema: z
                .object({
                  currency: z
                    .literal('EUR')
                    .openapi({ description: 'Currency of every price', example: 'EUR' }),
                  country: z
                    .string()
                    .nullable()
                    .openapi({ description: 'The country filter, if any', example: 'BG' }),
                  items: z.array(rateSchema),
                })
                .openapi('RateCard'),
            },
            'text/csv': {
              schema: z.string().openapi({
                description:
                  'CSV (RFC 4180) with the header line countryIso,mcc,mnc,operatorId,operator,smsPriceEur,chatappPriceEur',
                example:
                  'countryIso,mcc,mnc,operatorId,operator,smsPriceEur,chatappPriceEur\r\nBG,284,01,28401,A1 Bulgaria,0.0250,0.0100\r\n',
              }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => (c) => {
    const { format, country } = c.req.valid('query');
    const card = readRateCard(country);
    if (format === 'csv') {
      return c.body(ratesToCsv(card.items), 200, { 'content-type': 'text/csv; charset=utf-8' });
    }
    return c.json(card, 200);
  },
});
