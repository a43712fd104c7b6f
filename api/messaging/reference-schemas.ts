import { z } from '@hono/zod-openapi';
import type { MobileNetwork } from '../../domain/messaging/reference-data.ts';

/**
 * What the reference-data operations share (mccmnc.ts, operators.ts, prefixes.ts, rates.ts): the
 * country parameter and the mobile network as answered. The use cases read shipped data sets only
 * (application/messaging/reference.ts).
 */

export const countryParam = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
  .transform((value) => value.toUpperCase())
  .openapi({ description: 'ISO 3166-1 alpha-2 country code (case-insensitive)', example: 'BG' });

export const mobileNetworkSchema = z
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

/** A network as `mobileNetworkSchema` answers it. */
export function networkBody(network: MobileNetwork) {
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
