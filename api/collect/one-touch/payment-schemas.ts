import { z } from '@hono/zod-openapi';
import {
  type PaymentRow,
  type PaymentTerms,
  type RegisteredPayment,
  SANDBOX_CARD_LIMIT,
  TAX,
} from '../../../application/collect/index.ts';
import { OneTouchError } from '../../../domain/collect/one-touch-errors.ts';
import { appIdParameter, deviceIdParameter, identifier, tokenParameter } from './parameters.ts';
import { oneTouchErrorResponses } from './responses.ts';

/**
 * The parameters and answers of the one-touch payment operations: a payment's fields, its record as
 * ePay.bg answers it, and a declined payment as its error (application/collect/one-touch.ts makes them).
 */

const optionalText = (max: number) => z.string().max(max).optional();

export const paymentFields = {
  ID: identifier(64).openapi({
    description: 'Payment ID: your own (unique per application) or one issued by `payment/init`',
    example: '124345678',
  }),
  AMOUNT: z
    .string()
    .regex(/^[1-9]\d{0,11}$/, 'a positive whole number of stotinki')
    .openapi({ description: 'Amount in stotinki (minor units)', example: '1000' }),
  RCPT: z
    .string()
    .min(1)
    .max(100)
    .openapi({ description: 'Recipient, of the kind RCPT_TYPE says', example: '8897458022' }),
  RCPT_TYPE: z.enum(['KIN', 'GSM', 'EMAIL']).openapi({
    description: 'KIN: client number (digits); GSM: phone number; EMAIL: e-mail address',
    example: 'KIN',
  }),
  DESCRIPTION: optionalText(200).openapi({ example: 'Order 4711' }),
  REASON: optionalText(200).openapi({ example: 'Delivery' }),
};

export const registeredFields = {
  APPID: appIdParameter,
  DEVICEID: deviceIdParameter,
  TOKEN: tokenParameter,
  TYPE: z.literal('send').openapi({ description: 'Always `send`', example: 'send' }),
  ...paymentFields,
  PINS: identifier(100)
    .optional()
    .openapi({ description: 'Payment instrument to use (default: the device’s card)', example: 'pin_…' }),
  SHOW: z
    .string()
    .regex(
      /^(KIN|GSM|EMAIL|NAME)(,(KIN|GSM|EMAIL|NAME))*$/,
      'a comma-separated list of KIN, GSM, EMAIL, NAME',
    )
    .optional()
    .openapi({ description: 'What the recipient sees of the payer (default KIN)', example: 'KIN,NAME' }),
};

export const paymentRecordSchema = z
  .object({
    ID: z.string(),
    AMOUNT: z.number().int().openapi({ description: 'stotinki' }),
    TAX: z.number().int(),
    TOTAL: z.number().int(),
    RCPT: z.string(),
    RCPT_TYPE: z.string(),
    DESCRIPTION: z.string(),
    REASON: z.string(),
    STATE: z.number().int().openapi({ description: '4: Payment Complete, 5: Declined' }),
    'STATE.TEXT': z.string(),
    PINS: z.string(),
    SHOW: z.string(),
    NO: z
      .string()
      .openapi({ description: 'Transaction number of a completed payment', example: '2000000000032229' }),
  })
  .openapi('OneTouchPayment');

export const declinedResponse = {
  description: '`PAYMENT_DECLINED` (the answer also carries `payment`)',
  content: oneTouchErrorResponses[400].content,
};
export const conflictResponse = {
  description: '`PAYMENT_ID_CONFLICT` or `PAYMENT_ID_EXPIRED`',
  content: oneTouchErrorResponses[400].content,
};

export function paymentRecord(row: PaymentRow) {
  const amount = row.amount ?? 0;
  const complete = row.state === 'complete';
  return {
    ID: row.id,
    AMOUNT: amount,
    TAX,
    TOTAL: amount + TAX,
    RCPT: row.recipient ?? '',
    RCPT_TYPE: row.recipientType ?? '',
    DESCRIPTION: row.description ?? '',
    REASON: row.reason ?? '',
    STATE: complete ? 4 : 5,
    'STATE.TEXT': complete ? 'Payment Complete' : 'Declined',
    PINS: row.instrumentId ?? '',
    SHOW: row.show ?? '',
    NO: row.transactionNo ?? '',
  };
}

export function declined(row: PaymentRow, extra: Record<string, unknown> = {}): OneTouchError {
  return new OneTouchError(
    402,
    'PAYMENT_DECLINED',
    `The card declined the payment (sandbox card limit ${SANDBOX_CARD_LIMIT} stotinki)`,
    undefined,
    { payment: paymentRecord(row), ...extra },
  );
}

type PaymentQuery = z.infer<z.ZodObject<typeof paymentFields>>;

/** A payment's terms as its parameters give them. */
export const paymentTermsOf = (query: PaymentQuery): PaymentTerms => ({
  id: query.ID,
  amount: Number(query.AMOUNT),
  recipient: query.RCPT,
  recipientType: query.RCPT_TYPE,
  description: query.DESCRIPTION ?? '',
  reason: query.REASON ?? '',
});

/** A paired device's payment as its parameters give it (PINS, SHOW default KIN). */
export const registeredPaymentOf = (
  query: PaymentQuery & { PINS?: string | undefined; SHOW?: string | undefined },
): RegisteredPayment => ({ ...paymentTermsOf(query), pins: query.PINS, show: query.SHOW ?? 'KIN' });
