import { randomInt } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Database } from '../../../db/client.ts';
import { collectOneTouchDevices, collectOneTouchPayments } from '../../../db/schema/collect-one-touch.ts';
import { appIdParameter, deviceIdParameter, identifier, tokenParameter } from './device-tokens.ts';
import { OneTouchError, oneTouchErrorResponses } from './responses.ts';

/**
 * One-touch payments: `payment/init` reserves a payment ID, `payment/check` previews a payment,
 * `payment/send/status` makes it (or, repeated, reports it) and `payment/noreg/send/status` does the
 * same without a paired device, authenticated by the CHECKSUM of its parameters. The ID is unique per
 * application: a repeated request with the same parameters reports the recorded payment, never pays
 * twice; the same ID with other parameters is refused (409 `PAYMENT_ID_CONFLICT`).
 *
 * Sandbox card: amounts up to SANDBOX_CARD_LIMIT stotinki are paid at once (STATE 4), larger ones are
 * declined (402 `PAYMENT_DECLINED`, STATE 5), so both outcomes can be tried.
 */
export const SANDBOX_CARD_LIMIT = 100_000;
/** Sandbox payments carry no fee. */
export const TAX = 0;

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

export type PaymentRow = typeof collectOneTouchPayments.$inferSelect;

export interface PaymentRequest {
  appId: string;
  id: string;
  deviceId: string;
  kind: 'registered' | 'noreg';
  amount: number;
  recipient: string;
  recipientType: string;
  description: string;
  reason: string;
  instrumentId: string | null;
  show: string;
  saveCard: string | null;
}

/** A valid phone number in international form (+359..., 00359...), on libphonenumber's metadata. */
const isPhoneNumber = (text: string) =>
  parsePhoneNumberFromString(text.trim().replace(/^00/, '+'))?.isValid() === true;

export function assertRecipient(type: 'KIN' | 'GSM' | 'EMAIL', recipient: string): void {
  const valid =
    type === 'KIN'
      ? /^\d{1,20}$/.test(recipient)
      : type === 'GSM'
        ? isPhoneNumber(recipient)
        : z.email().safeParse(recipient).success;
  if (!valid) {
    const kind = {
      KIN: 'a client number (digits)',
      GSM: 'a phone number in international format',
      EMAIL: 'an e-mail address',
    };
    throw OneTouchError.invalid('RCPT', `not ${kind[type]} (RCPT_TYPE=${type})`);
  }
}

export async function loadDevice(db: Database, appId: string, deviceId: string) {
  const [device] = await db
    .select()
    .from(collectOneTouchDevices)
    .where(and(eq(collectOneTouchDevices.appId, appId), eq(collectOneTouchDevices.deviceId, deviceId)))
    .limit(1);
  // A live token implies a registered device; this guards against a device row removed by hand.
  if (!device) throw new OneTouchError(401, 'INVALID_TOKEN', 'The device is not registered', 'DEVICEID');
  return device;
}

export async function loadPayment(db: Database, appId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(collectOneTouchPayments)
    .where(and(eq(collectOneTouchPayments.appId, appId), eq(collectOneTouchPayments.id, id)))
    .limit(1);
  return row;
}

export const idConflict = (message: string) => new OneTouchError(409, 'PAYMENT_ID_CONFLICT', message, 'ID');

/** Refuses an ID reserved by `payment/init` for another device, or past its EXP. */
export function assertUsableReservation(row: PaymentRow, deviceId: string, now: Date): void {
  if (row.deviceId !== deviceId) throw idConflict('ID was issued to another device');
  if (row.expiresAt && row.expiresAt <= now) {
    throw new OneTouchError(
      409,
      'PAYMENT_ID_EXPIRED',
      'ID was reserved by payment/init and has expired',
      'ID',
    );
  }
}

const sameRequest = (row: PaymentRow, request: PaymentRequest) =>
  row.kind === request.kind &&
  row.deviceId === request.deviceId &&
  row.amount === request.amount &&
  row.recipient === request.recipient &&
  row.recipientType === request.recipientType &&
  row.description === request.description &&
  row.reason === request.reason &&
  row.instrumentId === request.instrumentId &&
  row.show === request.show &&
  row.saveCard === request.saveCard;

/** A 16-digit transaction number, as ePay.bg's (`2000000000032229`). */
const transactionNo = () =>
  `2${String(randomInt(0, 10_000_000)).padStart(7, '0')}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

function outcome(request: PaymentRequest, now: Date) {
  const approved = request.amount <= SANDBOX_CARD_LIMIT;
  return {
    state: approved ? ('complete' as const) : ('declined' as const),
    transactionNo: approved ? transactionNo() : null,
    completedAt: now,
  };
}

/**
 * Makes the payment the first time its ID is used, else reports the recorded one. The database row
 * is the single arbiter: concurrent requests with one ID race on its primary key (or on the
 * `initialized` state of a reserved ID), and the loser reports the winner's payment.
 */
export async function sendPayment(db: Database, request: PaymentRequest): Promise<PaymentRow> {
  const now = new Date();
  const fields = {
    deviceId: request.deviceId,
    kind: request.kind,
    amount: request.amount,
    recipient: request.recipient,
    recipientType: request.recipientType,
    description: request.description,
    reason: request.reason,
    instrumentId: request.instrumentId,
    show: request.show,
    saveCard: request.saveCard,
  };
  const existing = await loadPayment(db, request.appId, request.id);
  if (!existing) {
    const [inserted] = await db
      .insert(collectOneTouchPayments)
      .values({ appId: request.appId, id: request.id, ...fields, ...outcome(request, now) })
      .onConflictDoNothing()
      .returning();
    if (inserted) return inserted;
  } else if (existing.state === 'initialized') {
    if (request.kind !== 'registered')
      throw idConflict('ID was reserved by payment/init for a paired device');
    assertUsableReservation(existing, request.deviceId, now);
    const [updated] = await db
      .update(collectOneTouchPayments)
      .set({ ...fields, ...outcome(request, now) })
      .where(
        and(
          eq(collectOneTouchPayments.appId, request.appId),
          eq(collectOneTouchPayments.id, request.id),
          eq(collectOneTouchPayments.state, 'initialized'),
        ),
      )
      .returning();
    if (updated) return updated;
  }
  // A final payment read above, or the winner of a race just lost.
  const recorded =
    existing && existing.state !== 'initialized'
      ? existing
      : await loadPayment(db, request.appId, request.id);
  if (!recorded || recorded.state === 'initialized') {
    throw new Error(`payment ${request.id}: lost a race that nobody won`);
  }
  if (!sameRequest(recorded, request)) {
    throw idConflict('ID was already used for a payment with other parameters');
  }
  return recorded;
}

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

/** The device's card when PINS names it or is absent; INVALID_PARAMETER for any other instrument. */
export function chooseInstrument(device: { instrumentId: string }, pins: string | undefined): string {
  if (pins !== undefined && pins !== device.instrumentId) {
    throw OneTouchError.invalid('PINS', 'not a payment instrument of this device');
  }
  return device.instrumentId;
}
