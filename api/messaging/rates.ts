import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { QUOTED_RATE_COLUMNS } from '../../domain/messaging/price-lists.ts';
import { csvOf } from '../../domain/messaging/reference-data.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { countryParam } from './reference-schemas.ts';

/** `GET /rates/`: the rate card, as JSON or CSV. */

const decimal = (description: string, example: string) =>
  z.string().openapi({ description: `${description}, a decimal string with 4 decimals`, example });

const rateSchema = z
  .object({
    countryIso: z
      .string()
      .openapi({ description: 'Destination country (ISO 3166-1 alpha-2)', example: 'BG' }),
    mcc: z.string().openapi({ description: 'Mobile country code', example: '284' }),
    mnc: z.string().openapi({ description: 'Mobile network code', example: '01' }),
    operatorId: z.string().openapi({ description: 'MCC + MNC', example: '28401' }),
    operator: z
      .string()
      .openapi({ description: 'Destination network (empty when unknown)', example: 'A1 Bulgaria' }),
    smsPrice: decimal('Price of one SMS part in `currency`', '0.0250'),
    currency: z.string().openapi({ description: 'ISO 4217 currency of the prices', example: 'EUR' }),
    chatappPrice: decimal(
      'Price of one chat-app message in `currency` (null: not priced by the price list)',
      '0.0100',
    ).nullable(),
    source: z.enum(['network', 'country', 'tariff']).openapi({
      description:
        "What priced the line: the price list's row of the network, its country row, or the synthetic " +
        'tariff (sandbox mode only)',
      example: 'network',
    }),
    smsPriceEur: decimal('Deprecated (0.1.0): `smsPrice` when `currency` is EUR, else null', '0.0250')
      .nullable()
      .openapi({ deprecated: true }),
    chatappPriceEur: decimal('Deprecated (0.1.0): `chatappPrice` when `currency` is EUR, else null', '0.0100')
      .nullable()
      .openapi({ deprecated: true }),
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
        "Price per destination network of an SMS part, from the operator's price list of your account (or " +
        "the default list): the network's row, else its country's row. Without either, sandbox mode answers " +
        'the synthetic tariff (which also prices chat-app messages) and production leaves the network out. ' +
        'Prices are decimal strings, never floating-point numbers. `format=csv` returns the same lines as ' +
        'CSV with a header line.',
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
                  priceList: z.enum(['account', 'default']).nullable().openapi({
                    description: "The price list used: your account's own, the default one, or none",
                    example: 'account',
                  }),
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
                description: `CSV (RFC 4180) with the header line ${QUOTED_RATE_COLUMNS.join(',')}`,
                example: `${QUOTED_RATE_COLUMNS.join(',')}\r\nBG,284,01,28401,A1 Bulgaria,0.0250,EUR,,network,0.0250,\r\n`,
              }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { format, country } = c.req.valid('query');
    const card = await messaging.readRateCard(c.get('deps'), { accountId: c.get('accountId'), country });
    if (format === 'csv') {
      return c.body(csvOf(QUOTED_RATE_COLUMNS, card.items), 200, {
        'content-type': 'text/csv; charset=utf-8',
      });
    }
    return c.json(card, 200);
  },
});
