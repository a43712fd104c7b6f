import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { maintenanceNoticeSchema } from './bank-schemas.ts';
import { NO_SECURITY } from './identity.ts';

/**
 * `GET /api/8/reports/bank-maintenance` (no credential, as the spec lists none): the maintenance
 * windows banks announce, current and upcoming, from the read model that the bank directory schedule
 * refreshes every OPENBANKING_BANK_REFRESH_INTERVAL. It never calls a bank.
 */

const reportSchema = z
  .object({
    generatedAt: z.string().openapi({ description: 'When this report was read (ISO 8601)' }),
    notices: z.array(
      maintenanceNoticeSchema.extend({
        bankHash: z.string().openapi({ example: '5b0f1f3c9d2e4a7b8c6d0e1f' }),
        bankName: z.string().openapi({ example: 'Sandbox Bank C' }),
        country: z.string().openapi({ example: 'RO' }),
        fetchedAt: z
          .string()
          .openapi({ description: 'When the gateway last read this notice from the bank' }),
      }),
    ),
  })
  .openapi('BankMaintenanceReport');

export const reportsBankMaintenanceOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/reports/bank-maintenance',
      operationId: 'bankMaintenance',
      tags: ['Reports'],
      summary: 'Current maintenance messages of banks',
      description:
        'Maintenance windows of active banks that have not ended, by start time; `active` marks the ones on now. ' +
        'Public: no identity header is needed.',
      security: NO_SECURITY,
      responses: {
        200: { description: 'The notices', content: { 'application/json': { schema: reportSchema } } },
      },
    }),
  handler: () => async (c) => c.json(await openbanking.bankMaintenanceReport(c.get('deps')), 200),
});
