import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { countryParam } from './reference-schemas.ts';

/** `GET /prefixes/{country}`: the dialling plan of a country. */

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

export const prefixesOperation = defineMessagingOperation({
  route: () =>
    createRoute({
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
    }),
  handler: () => (c) =>
    c.json(messaging.getDiallingPlan(c.get('deps'), { country: c.req.valid('param').country }), 200),
});
