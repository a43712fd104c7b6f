import { randomBytes, randomInt } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { loadOneTouchApp } from '../../../activities/collect/one-touch-apps.ts';
import type { Database } from '../../../db/client.ts';
import { collectOneTouchDevices, collectOneTouchPayments } from '../../../db/schema/collect-one-touch.ts';
import { verifyOneTouchChecksum } from '../../../domain/collect/one-touch-checksum.ts';
import { normaliseNumber } from '../../../domain/messaging/phone.ts';
import type { AppEnv } from '../../shared/context.ts';
import { appIdParameter, deviceIdParameter, requireDeviceToken, tokenParameter } from './pairing.ts';
import { answerOneTouch, OneTouchError, oneTouchErrorResponses } from './responses.ts';

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
const TAX = 0;

const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'printable characters without spaces');
const optionalText = (max: number) => z.string().max(max).optional();

const paymentFields = {
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

const registeredFields = {
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

const paymentRecordSchema = z
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

const declinedResponse = {
  description: '`PAYMENT_DECLINED` (the answer also carries `payment`)',
  content: oneTouchErrorResponses[400].content,
};
const conflictResponse = {
  description: '`PAYMENT_ID_CONFLICT` or `PAYMENT_ID_EXPIRED`',
  content: oneTouchErrorResponses[400].content,
};

const checkRoute = createRoute({
  method: 'get',
  path: '/xdev/api/payment/check',
  tags: ['One-touch'],
  summary: 'Check a payment before sending it',
  description:
    'Validates the payment and answers the payment instruments that could pay it with fee and total. ' +
    'Records nothing.',
  request: { query: z.object(registeredFields) },
  responses: {
    200: {
      description: 'The previewed payment',
      content: {
        'application/json': {
          schema: z.object({
            status: z.literal('OK'),
            payment: z.object({
              ID: z.string(),
              AMOUNT: z.number().int(),
              PAYMENT_INSTRUMENTS: z.array(
                z.object({
                  ID: z.string(),
                  NAME: z.string(),
                  TAX: z.number().int(),
                  TOTAL: z.number().int(),
                  STATUS: z.enum(['OK', 'DECLINED']).openapi({ description: 'Whether it would pay' }),
                }),
              ),
              DATA: z.object({ RCPT_TYPE: z.string(), RCPT: z.string() }),
            }),
          }),
        },
      },
    },
    ...oneTouchErrorResponses,
    409: conflictResponse,
  },
});

const initRoute = createRoute({
  method: 'get',
  path: '/xdev/api/payment/init',
  tags: ['One-touch'],
  summary: 'Reserve a payment ID',
  description:
    'Issues a payment ID for this device, usable with `payment/check` and `payment/send/status` until EXP ' +
    '(default COLLECT_ONE_TOUCH_PAYMENT_ID_TTL, 1 hour).',
  request: {
    query: z.object({
      APPID: appIdParameter,
      DEVICEID: deviceIdParameter,
      TOKEN: tokenParameter,
      TYPE: z.literal('send').openapi({ description: 'Always `send`', example: 'send' }),
      EXP: z
        .string()
        .regex(/^\d{1,12}$/, 'Unix time in seconds')
        .optional()
        .openapi({
          description: 'Until when the ID may be used (Unix time, seconds)',
          example: '1800000000',
        }),
    }),
  },
  responses: {
    200: {
      description: 'The reserved ID',
      content: {
        'application/json': {
          schema: z.object({
            status: z.literal('OK'),
            payment: z.object({ ID: z.string(), EXP: z.number().int() }),
          }),
        },
      },
    },
    ...oneTouchErrorResponses,
  },
});

const sendRoute = createRoute({
  method: 'get',
  path: '/xdev/api/payment/send/status',
  tags: ['One-touch'],
  summary: 'Send a payment, or get its status',
  description:
    'Pays with the device’s card the first time an ID is used; with the same ID and parameters again, ' +
    'reports the recorded payment without paying again.',
  request: { query: z.object(registeredFields) },
  responses: {
    200: {
      description: 'The payment, completed',
      content: {
        'application/json': { schema: z.object({ status: z.literal('OK'), payment: paymentRecordSchema }) },
      },
    },
    ...oneTouchErrorResponses,
    402: declinedResponse,
    409: conflictResponse,
  },
});

const noregRoute = createRoute({
  method: 'get',
  path: '/xdev/api/api/payment/noreg/send/status',
  tags: ['One-touch'],
  summary: 'Pay, or get the status, without a paired device',
  description:
    'Authenticated by CHECKSUM: the lowercase hex HMAC-SHA1, keyed with the application SECRET, of every ' +
    'parameter of the request except CHECKSUM, sorted by name, each as a line `KEY VALUE\\n`. ' +
    'Idempotent per APPID + ID like `payment/send/status`.',
  request: {
    query: z.object({
      APPID: appIdParameter,
      DEVICEID: deviceIdParameter,
      ...paymentFields,
      CHECKSUM: z
        .string()
        .regex(/^[0-9a-fA-F]{40}$/, '40 hex characters (HMAC-SHA1)')
        .openapi({
          description: 'HMAC-SHA1 hex of the sorted parameters',
          example: 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
        }),
      SAVECARD: z
        .enum(['0', '1'])
        .optional()
        .openapi({ description: '1: keep the card for later payments (recorded)', example: '0' }),
    }),
  },
  responses: {
    200: {
      description: 'The payment, completed',
      content: {
        'application/json': {
          schema: z.object({
            status: z.literal('OK'),
            payment: paymentRecordSchema,
            savecard: z.number().int().openapi({ description: 'SAVECARD as recorded (0 or 1)' }),
          }),
        },
      },
    },
    ...oneTouchErrorResponses,
    402: declinedResponse,
    409: conflictResponse,
  },
});

type PaymentRow = typeof collectOneTouchPayments.$inferSelect;

interface PaymentRequest {
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

function assertRecipient(type: 'KIN' | 'GSM' | 'EMAIL', recipient: string): void {
  const valid =
    type === 'KIN'
      ? /^\d{1,20}$/.test(recipient)
      : type === 'GSM'
        ? normaliseNumber(recipient) !== undefined
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

async function loadDevice(db: Database, appId: string, deviceId: string) {
  const [device] = await db
    .select()
    .from(collectOneTouchDevices)
    .where(and(eq(collectOneTouchDevices.appId, appId), eq(collectOneTouchDevices.deviceId, deviceId)))
    .limit(1);
  // A live token implies a registered device; this guards against a device row removed by hand.
  if (!device) throw new OneTouchError(401, 'INVALID_TOKEN', 'The device is not registered', 'DEVICEID');
  return device;
}

async function loadPayment(db: Database, appId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(collectOneTouchPayments)
    .where(and(eq(collectOneTouchPayments.appId, appId), eq(collectOneTouchPayments.id, id)))
    .limit(1);
  return row;
}

const idConflict = (message: string) => new OneTouchError(409, 'PAYMENT_ID_CONFLICT', message, 'ID');

/** Refuses an ID reserved by `payment/init` for another device, or past its EXP. */
function assertUsableReservation(row: PaymentRow, deviceId: string, now: Date): void {
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
async function sendPayment(db: Database, request: PaymentRequest): Promise<PaymentRow> {
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

function paymentRecord(row: PaymentRow) {
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

function declined(row: PaymentRow, extra: Record<string, unknown> = {}): OneTouchError {
  return new OneTouchError(
    402,
    'PAYMENT_DECLINED',
    `The card declined the payment (sandbox card limit ${SANDBOX_CARD_LIMIT} stotinki)`,
    undefined,
    { payment: paymentRecord(row), ...extra },
  );
}

/** The device's card when PINS names it or is absent; INVALID_PARAMETER for any other instrument. */
function chooseInstrument(device: { instrumentId: string }, pins: string | undefined): string {
  if (pins !== undefined && pins !== device.instrumentId) {
    throw OneTouchError.invalid('PINS', 'not a payment instrument of this device');
  }
  return device.instrumentId;
}

export function registerOneTouchPaymentRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(checkRoute, (c) =>
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const device = await loadDevice(db, query.APPID, query.DEVICEID);
      assertRecipient(query.RCPT_TYPE, query.RCPT);
      const instrumentId = chooseInstrument(device, query.PINS);
      const existing = await loadPayment(db, query.APPID, query.ID);
      if (existing && existing.state !== 'initialized') throw idConflict('ID was already used for a payment');
      if (existing) assertUsableReservation(existing, query.DEVICEID, new Date());
      const amount = Number(query.AMOUNT);
      return c.json(
        {
          status: 'OK' as const,
          payment: {
            ID: query.ID,
            AMOUNT: amount,
            PAYMENT_INSTRUMENTS: [
              {
                ID: instrumentId,
                NAME: 'Sandbox card',
                TAX,
                TOTAL: amount + TAX,
                STATUS: amount <= SANDBOX_CARD_LIMIT ? ('OK' as const) : ('DECLINED' as const),
              },
            ],
            DATA: { RCPT_TYPE: query.RCPT_TYPE, RCPT: query.RCPT },
          },
        },
        200,
      );
    }),
  );

  app.openapi(initRoute, (c) =>
    answerOneTouch(c, async ({ db, config }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const now = Date.now();
      const expiresAt = query.EXP
        ? new Date(Number(query.EXP) * 1000)
        : new Date(now + config.COLLECT_ONE_TOUCH_PAYMENT_ID_TTL);
      if (expiresAt.getTime() <= now) throw OneTouchError.invalid('EXP', 'must be in the future');
      if (expiresAt.getTime() > now + config.COLLECT_MAX_EXPIRY) {
        throw OneTouchError.invalid('EXP', 'is too far in the future (COLLECT_MAX_EXPIRY)');
      }
      const id = randomBytes(32).toString('base64url');
      await db.insert(collectOneTouchPayments).values({
        appId: query.APPID,
        id,
        deviceId: query.DEVICEID,
        kind: 'registered',
        state: 'initialized',
        expiresAt,
      });
      return c.json(
        { status: 'OK' as const, payment: { ID: id, EXP: Math.floor(expiresAt.getTime() / 1000) } },
        200,
      );
    }),
  );

  app.openapi(sendRoute, (c) =>
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      await requireDeviceToken(db, query);
      const device = await loadDevice(db, query.APPID, query.DEVICEID);
      assertRecipient(query.RCPT_TYPE, query.RCPT);
      const row = await sendPayment(db, {
        appId: query.APPID,
        id: query.ID,
        deviceId: query.DEVICEID,
        kind: 'registered',
        amount: Number(query.AMOUNT),
        recipient: query.RCPT,
        recipientType: query.RCPT_TYPE,
        description: query.DESCRIPTION ?? '',
        reason: query.REASON ?? '',
        instrumentId: chooseInstrument(device, query.PINS),
        show: query.SHOW ?? 'KIN',
        saveCard: null,
      });
      if (row.state === 'declined') throw declined(row);
      return c.json({ status: 'OK' as const, payment: paymentRecord(row) }, 200);
    }),
  );

  app.openapi(noregRoute, (c) =>
    answerOneTouch(c, async ({ db, config }) => {
      const query = c.req.valid('query');
      const application = await loadOneTouchApp(db, config, query.APPID);
      if (!application) throw new OneTouchError(401, 'INVALID_APP', 'APPID names no application', 'APPID');
      // Every parameter as received counts, including ones this gateway does not use.
      if (!verifyOneTouchChecksum(c.req.query(), query.CHECKSUM, application.secret)) {
        throw new OneTouchError(
          401,
          'INVALID_CHECKSUM',
          'CHECKSUM does not match the parameters',
          'CHECKSUM',
        );
      }
      assertRecipient(query.RCPT_TYPE, query.RCPT);
      const saveCard = query.SAVECARD ?? '0';
      const row = await sendPayment(db, {
        appId: query.APPID,
        id: query.ID,
        deviceId: query.DEVICEID,
        kind: 'noreg',
        amount: Number(query.AMOUNT),
        recipient: query.RCPT,
        recipientType: query.RCPT_TYPE,
        description: query.DESCRIPTION ?? '',
        reason: query.REASON ?? '',
        instrumentId: null,
        show: 'KIN',
        saveCard,
      });
      if (row.state === 'declined') throw declined(row, { savecard: Number(saveCard) });
      return c.json({ status: 'OK' as const, payment: paymentRecord(row), savecard: Number(saveCard) }, 200);
    }),
  );
}
