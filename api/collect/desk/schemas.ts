import { z } from '@hono/zod-openapi';
import { deskOperationKinds, deskOperationStates } from '../../../domain/collect/desk.ts';
import { IDN_TEXT } from '../../../domain/collect/payloads.ts';

/** Schemas the desk API's operations share. */

export const idnSchema = z
  .string()
  .regex(IDN_TEXT, 'must be 10 digits')
  .openapi({ description: 'The 10-digit IDN (SYS_CODE of a payout)', example: '1234567890' });

export const receiptSchema = z
  .object({
    receipt: z.string().openapi({ description: '`<officeId>-<sequence>`', example: '000123-0000004567' }),
    operation: z.enum(deskOperationKinds),
    idn: z.string(),
    status: z.literal('PAID'),
    merchantMin: z.string(),
    invoice: z.string().nullable(),
    description: z.string().nullable(),
    amountMinor: z.number().int(),
    amount: z.string().openapi({ example: '150.00' }),
    currency: z.string().openapi({ example: 'BGN' }),
    payTime: z.string().nullable().openapi({ description: 'YYYYMMDDhhmmss, Europe/Sofia' }),
    stan: z
      .string()
      .nullable()
      .openapi({ description: "The desk's trace number (000000 for a payout)", example: '004567' }),
    bcode: z
      .string()
      .nullable()
      .openapi({ description: 'The office id (000000 for a payout)', example: '000123' }),
    tid: z
      .string()
      .nullable()
      .openapi({ description: "Billing IDNs: the TID sent to the merchant's billing system" }),
    officeId: z.string(),
    operatorId: z.string(),
    completedAt: z.string(),
  })
  .openapi('DeskReceipt');

export const deskAnswerSchema = z
  .object({
    receipt: receiptSchema,
    replayed: z
      .boolean()
      .openapi({ description: 'True when an earlier request with the same Idempotency-Key did it' }),
  })
  .openapi('DeskAnswer');

export const operationRecordSchema = z
  .object({
    receipt: z.string(),
    operation: z.enum(deskOperationKinds),
    idn: z.string(),
    state: z.enum(deskOperationStates),
    amountMinor: z.number().int().nullable(),
    currency: z.string().nullable(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable().openapi({
      description: 'The receipt (completed) or `{ refusal: { status, code, message } }` (refused)',
    }),
  })
  .openapi('DeskOperation');
