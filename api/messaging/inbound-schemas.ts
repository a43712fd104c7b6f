import { z } from '@hono/zod-openapi';

/** Schemas of the inbound-SMS operations (decision 0087), account's and operator's. */

export const inboundNumberSchema = z
  .object({
    number: z.string().openapi({ example: '+359888770001' }),
    accountId: z.string(),
    inboundUrl: z
      .string()
      .nullable()
      .openapi({ description: 'Where `message.inbound` events of the number go; null: stored only' }),
    assignedAt: z.string(),
  })
  .openapi('InboundNumber');

export const inboundUrlField = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .openapi({
    description:
      'Where the number’s `message.inbound` events are POSTed, signed as Standard Webhooks with the secret of ' +
      'your webhook endpoint for this URL (GET /webhooks/endpoints)',
    example: 'https://example.com/sms/inbound',
  });

export const optOutSchema = z
  .object({
    sender: z.string().openapi({ description: 'Your number the STOP was sent to', example: '+359888770001' }),
    recipient: z.string().openapi({ description: 'The handset that sent it', example: '+359888555001' }),
    createdAt: z.string(),
  })
  .openapi('OptOut');
