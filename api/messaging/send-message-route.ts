import { z } from '@hono/zod-openapi';
import { errorResponses } from '../shared/errors.ts';

/**
 * The request and answer of POST /sms (sms-send.ts) and POST /chatapp (chatapp.ts); the checks, the
 * idempotency key and the start of the message workflow are the use case's (application/messaging/sms/send.ts).
 */

const messageRequestSchema = z
  .object({
    to: z
      .string()
      .min(1)
      .max(32)
      .openapi({ description: 'Recipient, international (+359…) format', example: '+359888123456' }),
    from: z.string().min(1).max(16).openapi({
      description:
        'Sender: a phone number your account verified (POST /numbers), or an alphanumeric sender ID (1-11 characters) approved for your account',
      example: 'ACME',
    }),
    message: z
      .string()
      .min(1)
      .max(5000)
      .openapi({ description: 'Text of the message', example: 'Your code is 4711' }),
    scheduled: z.iso.datetime({ offset: true }).optional().openapi({
      description: 'Send at this time (ISO 8601 with offset); at once when absent',
      example: '2026-12-01T09:00:00Z',
    }),
    dlrUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .openapi({
        description: 'Where the delivery report is POSTed (signed, retried)',
        example: 'https://example.com/dlr',
      }),
    containsCode: z
      .boolean()
      .optional()
      .openapi({
        description:
          'The text carries a one-time code (a sign-in or signing code): it reaches the carrier as given, ' +
          'but the gateway keeps and answers (GET /sms/{id}, GET /sms) only a masked text, every digit ' +
          'replaced by `*`. Default false',
        example: true,
      }),
  })
  .openapi('MessageRequest');

const acceptedMessageSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Unique message id', example: '0f8fad5b-d9cb-469f-a165-70867728950e' }),
    status: z.enum(['accepted', 'scheduled']).openapi({ description: 'Initial status' }),
    to: z.string().openapi({ description: 'Recipient in E.164', example: '+359888123456' }),
    from: z.string().openapi({ example: 'ACME' }),
    encoding: z
      .enum(['GSM-7', 'UCS-2', 'UTF-8'])
      .openapi({ description: 'Encoding used on the air interface' }),
    parts: z.number().int().openapi({ description: 'Number of SMS segments billed', example: 1 }),
    scheduled: z.string().nullable().openapi({ description: 'Scheduled time, if any' }),
    dlrUrl: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('AcceptedMessage');

const idempotencyHeaderSchema = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description: 'Repeating a request with the same key returns the first message instead of sending again',
    example: 'order-4711-sms',
  }),
});

/** Everything of the route of POST /sms and POST /chatapp but its method, path and summary. */
export const sendMessageRoute = {
  tags: ['Messages'],
  description:
    'Validates and accepts the message at once; a workflow hands it to the carrier at the scheduled time, ' +
    'waits for the delivery receipt and POSTs the delivery report to `dlrUrl`.',
  request: {
    headers: idempotencyHeaderSchema,
    body: { required: true, content: { 'application/json': { schema: messageRequestSchema } } },
  },
  responses: {
    202: { description: 'Accepted', content: { 'application/json': { schema: acceptedMessageSchema } } },
    ...errorResponses,
    422: {
      description:
        '`idempotency_key_reused`: the Idempotency-Key was used for a request with another body; ' +
        '`sender_id_not_approved`: the sender ID is not approved for this account; ' +
        '`number_not_verified`: the `from` number is not verified by this account (POST /numbers); ' +
        '`recipient_opted_out`: the `to` handset sent STOP to the `from` number (GET /inbound/optOuts)',
      content: errorResponses[400].content,
    },
  },
};
