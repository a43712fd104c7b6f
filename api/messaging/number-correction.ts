import { createRoute, z } from '@hono/zod-openapi';
import { correctNumber } from '../../domain/messaging/phone.ts';
import { isCountryCode } from '../../domain/phone-numbers.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';

/** `POST /numberCorrection`: corrects a number to E.164 and tells its type and country. */

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

export const numberCorrectionOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/numberCorrection',
      tags: ['Numbers'],
      summary: 'Correct and validate a number',
      description:
        'Corrects a number to E.164 and tells its type and country. An invalid number is an answer, not an ' +
        'error: the response is 200 with `Error` set. A missing or ill-typed field is a 400.',
      request: {
        body: {
          required: true,
          content: { 'application/json': { schema: numberCorrectionRequestSchema } },
        },
      },
      responses: {
        200: {
          description: 'The correction result',
          content: { 'application/json': { schema: numberCorrectionSchema } },
        },
        400: errorResponses[400],
        401: errorResponses[401],
      },
    }),
  handler: () => (c) => {
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
  },
});
