import { readFileSync } from 'node:fs';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { correctNumber, isCountryCode } from '../../domain/messaging/phone.ts';
import {
  diallingPlan,
  findOperator,
  isKnownCountry,
  MCCMNC_PAGE_SIZE,
  type MobileNetwork,
  networksOfCountry,
  pageOf,
  parseRatesCsv,
  type Rate,
  ratesToCsv,
} from '../../domain/messaging/reference-data.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import type { MessagingEnv } from './auth.ts';

/**
 * Number and reference-data operations of the messaging gateway: number correction, MCC/MNC lists,
 * operator details, dialling prefixes and the rate card. They read shipped data sets only.
 */

const RATES_FILE = new URL('../../datasets/messaging-rates.csv', import.meta.url);
let rateCard: Rate[] | undefined;

/** Read once per process; a malformed file fails the first request loudly rather than pricing wrongly. */
function rates(): Rate[] {
  rateCard ??= parseRatesCsv(readFileSync(RATES_FILE, 'utf8'));
  return rateCard;
}

const countryParam = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
  .transform((value) => value.toUpperCase())
  .openapi({ description: 'ISO 3166-1 alpha-2 country code (case-insensitive)', example: 'BG' });

function knownCountry(country: string): string {
  if (!isKnownCountry(country)) throw ApiError.notFound(`Country ${country}`);
  return country;
}

// --- POST /numberCorrection ---------------------------------------------------------------------

const numberCorrectionRequestSchema = z
  .object({
    number: z.string().min(1).max(64).openapi({
      description:
        'The number as the user wrote it: international (+359…, 00359…) or national with `country`',
      example: '0888 123 456',
    }),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
      .transform((value) => value.toUpperCase())
      .refine(isCountryCode, 'is not a country with a numbering plan')
      .optional()
      .openapi({
        description: 'Country of a number written in national format (ISO 3166-1 alpha-2)',
        example: 'BG',
      }),
  })
  .openapi('NumberCorrectionRequest');

const numberCorrectionSchema = z
  .object({
    Error: z
      .enum([
        'not_a_number',
        'country_required',
        'invalid_country_code',
        'too_short',
        'too_long',
        'invalid_length',
        'invalid_number',
      ])
      .nullable()
      .openapi({
        description:
          'null when the number is valid; otherwise why not: not_a_number, country_required (national format ' +
          'without `country`), invalid_country_code, too_short, too_long, invalid_length, invalid_number',
        example: null,
      }),
    Number: z.string().openapi({ description: 'The number as given', example: '0888 123 456' }),
    NumberType: z.enum(['mobile', 'landline', 'unknown']).openapi({
      description: 'mobile, landline, or unknown (invalid, toll-free, premium, VoIP, ...)',
      example: 'mobile',
    }),
    CountryIso: z
      .string()
      .nullable()
      .openapi({ description: 'ISO 3166-1 alpha-2 country of the number, when known', example: 'BG' }),
    Mobile: z.boolean().openapi({ description: 'Whether an SMS can reach the number', example: true }),
    NumberE164: z.string().nullable().openapi({
      description: 'The corrected number in E.164; null when the number is not valid',
      example: '+359888123456',
    }),
  })
  .openapi('NumberCorrection');

const numberCorrectionRoute = createRoute({
  method: 'post',
  path: '/numberCorrection',
  tags: ['Numbers'],
  summary: 'Correct and validate a number',
  description:
    'Corrects a number to E.164 and tells its type and country. An invalid number is an answer, not an ' +
    'error: the response is 200 with `Error` set. A missing or ill-typed field is a 400.',
  request: {
    body: { required: true, content: { 'application/json': { schema: numberCorrectionRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The correction result',
      content: { 'application/json': { schema: numberCorrectionSchema } },
    },
    400: errorResponses[400],
    401: errorResponses[401],
  },
});

// --- GET /mccmnc/{country} ----------------------------------------------------------------------

const mobileNetworkSchema = z
  .object({
    mcc: z.string().openapi({ description: 'Mobile country code', example: '284' }),
    mnc: z.string().openapi({ description: 'Mobile network code (2 or 3 digits)', example: '01' }),
    operatorId: z.string().openapi({ description: 'MCC + MNC, as in HLR results', example: '28401' }),
    brand: z.string().nullable().openapi({ description: 'Brand the network trades under', example: 'A1 BG' }),
    operator: z
      .string()
      .nullable()
      .openapi({ description: 'Company operating the network', example: 'A1 Bulgaria' }),
    status: z.string().openapi({
      description: 'As published: Operational, Not operational, Reserved, Planned, Testing, ...',
      example: 'Operational',
    }),
    countryIso: z.string().nullable().openapi({
      description: 'ISO 3166-1 alpha-2 of the (first) country served; ISO 3166-2 for a territory without one',
      example: 'BG',
    }),
    countries: z.array(z.string()).openapi({
      description: 'Every country the network serves (several for a few shared networks)',
      example: ['BG'],
    }),
    countryName: z
      .string()
      .nullable()
      .openapi({ description: 'Country name as published', example: 'Bulgaria' }),
  })
  .openapi('MobileNetwork');

const mccMncListRoute = createRoute({
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
});

// --- GET /operators/{operatorId} ----------------------------------------------------------------

const operatorRoute = createRoute({
  method: 'get',
  path: '/operators/{operatorId}',
  tags: ['Reference data'],
  summary: 'Operator details',
  description:
    'The network with this MCC/MNC. Where several are published with the same code (Crown dependencies ' +
    'share UK codes, for example), the operational one is returned and the others are in `otherListings`.',
  request: {
    params: z.object({
      operatorId: z
        .string()
        .regex(/^\d{5,6}$/, 'must be MCC + MNC: 5 or 6 digits')
        .openapi({ description: 'MCC + MNC', example: '28401' }),
    }),
  },
  responses: {
    200: {
      description: 'The operator',
      content: {
        'application/json': {
          schema: mobileNetworkSchema
            .extend({
              otherListings: z
                .array(mobileNetworkSchema)
                .openapi({ description: 'Other networks published with the same MCC/MNC', example: [] }),
            })
            .openapi('Operator'),
        },
      },
    },
    ...errorResponses,
  },
});

// --- GET /prefixes/{country} --------------------------------------------------------------------

const diallingPlanSchema = z
  .object({
    country: z.string().openapi({ description: 'The country, upper case', example: 'BG' }),
    callingCode: z
      .string()
      .openapi({ description: 'Country calling code with the plus sign', example: '+359' }),
    internationalPrefix: z.string().openapi({
      description: 'International (IDD) prefix dialled from this country; the preferred one',
      example: '00',
    }),
    internationalPrefixPattern: z.string().openapi({
      description: 'Regular expression of every IDD prefix the country accepts (same as above for most)',
      example: '00',
    }),
    nationalPrefix: z.string().nullable().openapi({
      description: 'Trunk prefix before national numbers; null where there is none',
      example: '0',
    }),
    mobileNumberExample: z
      .string()
      .nullable()
      .openapi({ description: 'An example mobile number, E.164', example: '+35943012345' }),
    mobileNumberPattern: z.string().nullable().openapi({
      description:
        'Regular expression of a mobile national significant number (no calling code, no trunk prefix)',
      example: '(?:43[07-9]|99[69]\\d)\\d{5}|(?:8[7-9]|98)\\d{7}',
    }),
    mobileNumberLengths: z
      .array(z.number().int())
      .openapi({ description: 'Possible lengths of a mobile national significant number', example: [8, 9] }),
  })
  .openapi('DiallingPlan');

const prefixesRoute = createRoute({
  method: 'get',
  path: '/prefixes/{country}',
  tags: ['Reference data'],
  summary: 'Dialling prefixes of a country',
  description:
    "The country's calling code, international and trunk prefixes and what its mobile numbers look like, " +
    "from libphonenumber's metadata. Mobile numbers are described by a pattern rather than a list of " +
    'prefixes, because the metadata defines them that way (and number portability makes prefixes unreliable).',
  request: { params: z.object({ country: countryParam }) },
  responses: {
    200: {
      description: 'The dialling plan',
      content: { 'application/json': { schema: diallingPlanSchema } },
    },
    ...errorResponses,
  },
});

// --- GET /rates/ --------------------------------------------------------------------------------

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

function ratesRoute(path: '/rates/' | '/rates') {
  return createRoute({
    method: 'get',
    path,
    // `/rates` answers too, for clients that drop the trailing slash; only the spec's path is documented.
    hide: path === '/rates',
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
  });
}

function networkBody(network: MobileNetwork) {
  return {
    mcc: network.mcc,
    mnc: network.mnc,
    operatorId: network.operatorId,
    brand: network.brand,
    operator: network.operator,
    status: network.status,
    countryIso: network.countryIso,
    countries: network.countries,
    countryName: network.countryName,
  };
}

export function registerReferenceRoutes(app: OpenAPIHono<MessagingEnv>): void {
  app.openapi(numberCorrectionRoute, (c) => {
    const { number, country } = c.req.valid('json');
    const corrected = correctNumber(number, country);
    return c.json(
      {
        Error: corrected.error,
        Number: number,
        NumberType: corrected.numberType,
        CountryIso: corrected.countryIso,
        Mobile: corrected.mobile,
        NumberE164: corrected.e164,
      },
      200,
    );
  });

  app.openapi(mccMncListRoute, (c) => {
    const country = knownCountry(c.req.valid('param').country);
    const page = Number(c.req.valid('query').Page ?? '1');
    const result = pageOf(networksOfCountry(country), page, MCCMNC_PAGE_SIZE);
    return c.json({ country, ...result, items: result.items.map(networkBody) }, 200);
  });

  app.openapi(operatorRoute, (c) => {
    const { operatorId } = c.req.valid('param');
    const found = findOperator(operatorId);
    if (!found) throw ApiError.notFound(`Operator ${operatorId}`);
    return c.json(
      { ...networkBody(found.network), otherListings: found.otherListings.map(networkBody) },
      200,
    );
  });

  app.openapi(prefixesRoute, (c) => {
    const { country } = c.req.valid('param');
    const plan = diallingPlan(country);
    if (!plan) throw ApiError.notFound(`Country ${country}`);
    return c.json(plan, 200);
  });

  for (const path of ['/rates/', '/rates'] as const) {
    app.openapi(ratesRoute(path), (c) => {
      const { format, country } = c.req.valid('query');
      if (country) knownCountry(country);
      const items = country ? rates().filter((rate) => rate.countryIso === country) : rates();
      if (format === 'csv') {
        return c.body(ratesToCsv(items), 200, { 'content-type': 'text/csv; charset=utf-8' });
      }
      return c.json({ currency: 'EUR' as const, country: country ?? null, items }, 200);
    });
  }
}
