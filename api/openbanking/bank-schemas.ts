import { z } from '@hono/zod-openapi';
import { getCountries } from 'libphonenumber-js';
import { BANK_FLOW_TYPES } from '../../domain/openbanking/xs2a.ts';

/**
 * The bank record of the gateway's bank endpoints (GET banks, GET banks/{bankHash}, POST bank/{bankHash});
 * the reads behind them are application/openbanking/banks.ts.
 */

const KNOWN_COUNTRIES = new Set<string>(getCountries());

/** The `country` query parameter: ISO 3166-1 alpha-2, either case. */
export const countryQueryField = z
  .string()
  .transform((value) => value.toUpperCase())
  .refine(
    (value) => /^[A-Z]{2}$/.test(value) && KNOWN_COUNTRIES.has(value),
    'must be an ISO 3166-1 alpha-2 country code',
  )
  .optional()
  .openapi({ description: 'Only banks of this country (ISO 3166-1 alpha-2)', example: 'BG' });

export const bankHashParam = z
  .string()
  .regex(/^[0-9a-f]{24}$/, 'must be 24 lower-case hex characters')
  .openapi({
    param: { name: 'bankHash', in: 'path' },
    description: 'Id of a bank, from GET banks',
    example: '5b0f1f3c9d2e4a7b8c6d0e1f',
  });

export const maintenanceNoticeSchema = z
  .object({
    noticeId: z
      .string()
      .openapi({ description: 'The bank’s id of the notice', example: 'weekly-2026-11-29' }),
    startsAt: z
      .string()
      .openapi({ description: 'Start of the window (ISO 8601)', example: '2026-11-29T01:00:00.000Z' }),
    endsAt: z
      .string()
      .openapi({ description: 'End of the window (ISO 8601)', example: '2026-11-29T03:00:00.000Z' }),
    message: z
      .string()
      .openapi({ description: 'The bank’s message', example: 'Planned maintenance of online banking' }),
    active: z.boolean().openapi({ description: 'The window is on now: the bank answers 503 until endsAt' }),
  })
  .openapi('BankMaintenanceNotice');

export const bankSchema = z
  .object({
    bankHash: z
      .string()
      .openapi({ description: 'Id of the bank in paths and bodies', example: '5b0f1f3c9d2e4a7b8c6d0e1f' }),
    name: z.string().openapi({ example: 'Sandbox Bank A' }),
    country: z.string().openapi({ description: 'ISO 3166-1 alpha-2', example: 'BG' }),
    bic: z.string().openapi({ example: 'SBXABGSF' }),
    bankFlowType: z.enum(BANK_FLOW_TYPES).openapi({
      description:
        'How the user authenticates at the bank: `redirect` (the bank’s own page), `embedded` (credentials entered in ' +
        'your frontend) or `decoupled` (approval in the bank’s app). See POST bank/{bankHash}.',
      example: 'redirect',
    }),
    supportsPagedTransactions: z.boolean().openapi({
      description: 'The bank pages transactions itself: GET /api/8/paged-transactions works for its accounts',
      example: false,
    }),
    maintenance: z.array(maintenanceNoticeSchema).openapi({
      description: 'Current and announced maintenance windows (from the bank, refreshed every few minutes)',
    }),
  })
  .openapi('Bank');
