import { z } from '@hono/zod-openapi';

/** The tenant's dictionaries as the API answers them (application/lending/dictionaries.ts). */

export const cancellationReasonSchema = z
  .object({
    reasonId: z.string().openapi({ example: 'crs_0b6f3c9e2d1a4f5b8c7e6d5a' }),
    name: z.string().openapi({ example: 'Changed my mind' }),
  })
  .openapi('CancellationReason');

export const branchOfficeSchema = z
  .object({
    branchOfficeId: z.string().openapi({ example: 'bro_4a1d9c0e7b2f4e3a8d6c5b10' }),
    name: z.string().openapi({ example: 'Downtown office' }),
    address: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .openapi('BranchOffice');
