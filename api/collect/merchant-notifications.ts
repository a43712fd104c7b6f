import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { collect } from '../../application/collect/index.ts';
import { CollectProtocolError } from '../../domain/collect/errors.ts';
import { notificationDeliveryStates } from '../../domain/collect/notification-packet.ts';
import type { AppEnv } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';

/**
 * GET /notifications: the merchant reads the notifications of one INVOICE and every attempt of them,
 * authenticated like every ENCODED endpoint (ENCODED with MIN and INVOICE, CHECKSUM keyed with the
 * secret). The key that verifies their SIGNATURE is GET /.well-known/notification-key.pem.
 */

const textError = (c: Context<AppEnv>, error: CollectProtocolError) =>
  c.body(error.toText(), error.status as 400, { 'content-type': 'text/plain; charset=utf-8' });

const attemptSchema = z.object({
  attempt: z.number().int().openapi({ description: '1 for the first attempt', example: 1 }),
  attemptedAt: z.string().openapi({ example: '2026-05-01T10:00:00.120Z' }),
  batchId: z.string().openapi({ description: 'The POST this attempt went in (shared by a batch)' }),
  batchSize: z.number().int().openapi({ description: 'How many invoices that POST carried', example: 1 }),
  httpStatus: z
    .number()
    .int()
    .nullable()
    .openapi({ description: 'HTTP status of your reply; null when none' }),
  reply: z
    .enum(['OK', 'ERR', 'NO'])
    .nullable()
    .openapi({ description: 'Your answer for this invoice; null when the reply did not give one' }),
  latencyMs: z.number().int(),
  error: z
    .string()
    .nullable()
    .openapi({
      description:
        'Why the attempt did not end the delivery; without an HTTP answer `timeout`, `connection_failed`, ' +
        '`host_not_found`, `tls_error` or `refused_by_policy` (sandbox mode: the socket error code)',
    }),
});

const notificationSchema = z
  .object({
    invoice: z.string().openapi({ example: '100045' }),
    idn: z.string().openapi({ example: '1234567890' }),
    status: z.enum(['PAID', 'DENIED', 'EXPIRED', 'SAVED', 'REVERSED']).openapi({
      description:
        'The STATUS notified (SAVED: a card verification, decision 0045; REVERSED: the bank took the payment back, the obligation is unpaid again, decision 0063)',
    }),
    payTime: z.string().nullable().openapi({ example: '20260501130000' }),
    stan: z.string().nullable(),
    bcode: z.string().nullable(),
    card: z
      .object({
        token: z.string().openapi({ description: 'CARD_TOKEN', example: 'ctk_0123456789abcdef01234567' }),
        brand: z.string().openapi({ description: 'CARD_BRAND', example: 'VISA' }),
        last4: z.string().openapi({ description: 'CARD_LAST4', example: '4242' }),
        expiry: z.string().openapi({ description: 'CARD_EXP (MM/YYYY)', example: '12/2029' }),
      })
      .nullable()
      .openapi({ description: 'The card this INVOICE saved (SAVECARD=1), as notified; null otherwise' }),
    delivery: z.enum(notificationDeliveryStates).openapi({
      description:
        '`pending` while attempts go on; `delivered` (you answered OK); `unknown` (you answered NO); ' +
        '`failed` (the retry schedule ran out); `no_url` (no notification URL registered)',
    }),
    attemptCount: z.number().int(),
    createdAt: z.string(),
    nextAttemptAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    attempts: z.array(attemptSchema),
  })
  .openapi('MerchantNotification');

export const notificationsOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/notifications',
      tags: ['Notifications'],
      summary: 'Notifications of an invoice and their attempts',
      description:
        'ENCODED: base64 of `MIN=<merchant id>` and `INVOICE=<n>` lines; CHECKSUM: lowercase hex HMAC-SHA1 ' +
        'of ENCODED keyed with your secret. Answers the notifications of that invoice (oldest first) with ' +
        'every attempt. Errors are `ERR=`/`ERRMSG=` text like every ENCODED endpoint; an invoice without ' +
        'notifications answers an empty list.',
      request: {
        query: z.object({
          ENCODED: z.string().optional().openapi({ description: 'base64 of `MIN=...\\nINVOICE=...`' }),
          CHECKSUM: z.string().optional().openapi({ description: 'HMAC-SHA1 of ENCODED, lowercase hex' }),
        }),
      },
      responses: {
        200: {
          description: 'The notifications of the invoice',
          content: {
            'application/json': {
              schema: z.object({ invoice: z.string(), notifications: z.array(notificationSchema) }),
            },
          },
        },
        400: {
          description: 'ERR=MISSING_FIELD, BAD_FIELD or BAD_ENCODED',
          content: { 'text/plain': { schema: z.string() } },
        },
        401: {
          description: 'ERR=UNKNOWN_MERCHANT or BAD_CHECKSUM',
          content: { 'text/plain': { schema: z.string() } },
        },
      },
    }),
  // Protocol errors are text, so the handler checks the parameters itself (MISSING_FIELD, ...).
  handler: () => async (c) => {
    try {
      const answer = await collect.merchantNotifications(c.get('deps'), {
        encoded: c.req.query('ENCODED'),
        checksum: c.req.query('CHECKSUM'),
      });
      return c.json(answer, 200);
    } catch (error) {
      if (error instanceof CollectProtocolError) return textError(c, error);
      throw error;
    }
  },
});
