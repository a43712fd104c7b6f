import { z } from '@hono/zod-openapi';

/**
 * What the `from`-number operations (numbers-*.ts, beyond the spec, decision 0028) share: a number as
 * answered and its id parameter. The rules are the use cases' (application/messaging/numbers.ts).
 */

export const senderNumberSchema = z
  .object({
    id: z.string().openapi({ example: '5b0a3c1e-2f4d-4c8e-9a7b-3d2e1f0a9b8c' }),
    number: z.string().openapi({ description: 'E.164', example: '+359888000111' }),
    status: z.enum(['pending', 'verified']).openapi({
      description:
        'pending until the code sent to the number is entered; verified numbers may be used as `from`',
    }),
    codeExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: 'The current code is accepted until this time (null once verified)' }),
    attemptsLeft: z.number().int().openapi({ description: 'Wrong codes the current code still allows' }),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
  })
  .openapi('SenderNumber');

export const numberIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });
