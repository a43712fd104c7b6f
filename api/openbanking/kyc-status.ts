import { z } from '@hono/zod-openapi';
import { kycStatusField } from './user-schemas.ts';

/**
 * The KYC status record of a customer, answered by GET id/status and POST kyc/update. The agent runs the identity check and reports its outcome with
 * `POST /api/8/kyc/update`; the customer (or the agent's frontend for them) reads it with
 * `GET /api/{6,7,8}/id/status`. States and moves: domain/openbanking/kyc.ts.
 */

export const kycStatusSchema = z
  .object({
    userId: z.string().openapi({ example: 'usr_0f8fad5b...' }),
    status: kycStatusField,
    reason: z.string().nullable().openapi({ description: 'Why, as the agent reported it', example: null }),
    updatedAt: z.string().nullable().openapi({ description: 'Last change; null while NOT_STARTED' }),
  })
  .openapi('KycStatus');
