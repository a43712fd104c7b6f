import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';
import { loadOneTouchApp, oneTouchAppExists } from '../../credentials/collect/one-touch-apps.ts';
import {
  collectOneTouchCodes,
  collectOneTouchDevices,
  collectOneTouchPayments,
  collectOneTouchTokens,
} from '../../db/schema/collect-one-touch.ts';
import { verifyOneTouchChecksum } from '../../domain/collect/one-touch-checksum.ts';
import { OneTouchError } from '../../domain/collect/one-touch-errors.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * One-touch (spec A.8). Pairing a device with an application: `code/get` registers the device and
 * hands out a short-lived, single-use code; `token/get` exchanges it for an access token bound to that
 * application and device; `token/invalidate` ends the token. In this gateway the customer's consent
 * (ePay.bg's hosted authorisation page) is simulated: the sandbox user is deemed to have authorised the
 * device, so `code/get` answers the code at once (docs/collect.md, decision 0013).
 *
 * Payments: `payment/init` reserves a payment ID, `payment/check` previews a payment,
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

export type PaymentRow = typeof collectOneTouchPayments.$inferSelect;

/** SHA-256 hex: codes and tokens are kept only as hashes. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// --- credentials ---------------------------------------------------------------------------------

/** What a paired device's call carries. */
export interface DeviceCredential {
  appId: string;
  deviceId: string;
  token: string;
}

async function requireApp(deps: UseCaseDeps, appId: string): Promise<void> {
  if (!(await oneTouchAppExists(deps.db, appId))) {
    throw new OneTouchError(401, 'INVALID_APP', 'APPID names no application', 'APPID');
  }
}

/** A device's call: the application exists (INVALID_APP) and the token is live for it and the device. */
async function requireDeviceToken(
  deps: UseCaseDeps,
  credential: DeviceCredential,
): Promise<{ tokenId: string }> {
  await requireApp(deps, credential.appId);
  const [row] = await deps.db
    .select({ id: collectOneTouchTokens.id })
    .from(collectOneTouchTokens)
    .where(
      and(
        eq(collectOneTouchTokens.tokenHash, sha256(credential.token)),
        eq(collectOneTouchTokens.appId, credential.appId),
        eq(collectOneTouchTokens.deviceId, credential.deviceId),
        isNull(collectOneTouchTokens.invalidatedAt),
        gt(collectOneTouchTokens.expiresAt, new Date()),
      ),
    )
    .limit(1);
  if (!row) {
    throw new OneTouchError(
      401,
      'INVALID_TOKEN',
      'TOKEN is not valid for this application and device',
      'TOKEN',
    );
  }
  return { tokenId: row.id };
}

// --- pairing -------------------------------------------------------------------------------------

/** The sandbox user's client number: 10 digits, not starting with 0. */
const generateKin = () => String(randomInt(1_000_000_000, 10_000_000_000));

export interface DevicePairing {
  appId: string;
  deviceId: string;
  /** Unique per device and pairing. */
  key: string;
  /** What the device says of itself (kept, updated on later calls). */
  described: {
    deviceName: string | null;
    brand: string | null;
    os: string | null;
    model: string | null;
    osVersion: string | null;
    phone: string | null;
    userType: string | null;
  };
}

/** Registers the device with the application and hands out a single-use pairing code (code/get). */
export async function pairDevice(deps: UseCaseDeps, pairing: DevicePairing): Promise<{ code: string }> {
  const { db, config } = deps;
  await requireApp(deps, pairing.appId);
  const code = randomBytes(16).toString('hex');
  const expiresAt = new Date(Date.now() + config.COLLECT_ONE_TOUCH_CODE_TTL);
  const { described } = pairing;
  const issued = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(collectOneTouchCodes)
      .values({
        appId: pairing.appId,
        deviceId: pairing.deviceId,
        key: pairing.key,
        codeHash: sha256(code),
        expiresAt,
      })
      .onConflictDoNothing()
      .returning({ id: collectOneTouchCodes.id });
    if (!inserted) return false;
    await tx
      .insert(collectOneTouchDevices)
      .values({
        appId: pairing.appId,
        deviceId: pairing.deviceId,
        ...described,
        kin: generateKin(),
        instrumentId: `pin_${randomBytes(16).toString('base64url')}`,
      })
      .onConflictDoUpdate({
        target: [collectOneTouchDevices.appId, collectOneTouchDevices.deviceId],
        set: { ...described, updatedAt: sql`now()` },
      });
    return true;
  });
  if (!issued) {
    throw new OneTouchError(
      409,
      'KEY_ALREADY_USED',
      'This KEY was already used by this device: pair with a new KEY',
      'KEY',
    );
  }
  return { code };
}

/** Exchanges a pairing code (once) for an access token bound to the application and device (token/get). */
export async function issueDeviceToken(
  deps: UseCaseDeps,
  request: { appId: string; deviceId: string; code: string },
): Promise<{ token: string; expiresAt: Date; kin: string }> {
  const { db, config } = deps;
  await requireApp(deps, request.appId);
  const token = `ot_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + config.COLLECT_ONE_TOUCH_TOKEN_TTL);
  const device = await db.transaction(async (tx) => {
    // Single use: the update that marks the code used is the one that may issue the token.
    const [used] = await tx
      .update(collectOneTouchCodes)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(collectOneTouchCodes.codeHash, sha256(request.code)),
          eq(collectOneTouchCodes.appId, request.appId),
          eq(collectOneTouchCodes.deviceId, request.deviceId),
          isNull(collectOneTouchCodes.usedAt),
          gt(collectOneTouchCodes.expiresAt, new Date()),
        ),
      )
      .returning({ id: collectOneTouchCodes.id });
    if (!used) return undefined;
    await tx.insert(collectOneTouchTokens).values({
      id: `ott_${randomUUID().replaceAll('-', '')}`,
      appId: request.appId,
      deviceId: request.deviceId,
      tokenHash: sha256(token),
      expiresAt,
    });
    const [row] = await tx
      .select({ kin: collectOneTouchDevices.kin })
      .from(collectOneTouchDevices)
      .where(
        and(
          eq(collectOneTouchDevices.appId, request.appId),
          eq(collectOneTouchDevices.deviceId, request.deviceId),
        ),
      );
    return row;
  });
  if (!device) {
    throw new OneTouchError(
      400,
      'INVALID_CODE',
      'CODE is unknown, already used, expired, or not issued to this device',
      'CODE',
    );
  }
  return { token, expiresAt, kin: device.kin };
}

/** Ends an access token at once (token/invalidate). */
export async function invalidateDeviceToken(deps: UseCaseDeps, credential: DeviceCredential): Promise<void> {
  const { tokenId } = await requireDeviceToken(deps, credential);
  await deps.db
    .update(collectOneTouchTokens)
    .set({ invalidatedAt: new Date() })
    .where(and(eq(collectOneTouchTokens.id, tokenId), isNull(collectOneTouchTokens.invalidatedAt)));
}

// --- payments ------------------------------------------------------------------------------------

/** Reserves a payment ID for the device, usable until `exp` (Unix seconds) or the default (payment/init). */
export async function reservePaymentId(
  deps: UseCaseDeps,
  { credential, exp }: { credential: DeviceCredential; exp: string | undefined },
): Promise<{ id: string; expiresAt: Date }> {
  const { db, config } = deps;
  await requireDeviceToken(deps, credential);
  const now = Date.now();
  const expiresAt = exp
    ? new Date(Number(exp) * 1000)
    : new Date(now + config.COLLECT_ONE_TOUCH_PAYMENT_ID_TTL);
  if (expiresAt.getTime() <= now) throw OneTouchError.invalid('EXP', 'must be in the future');
  if (expiresAt.getTime() > now + config.COLLECT_MAX_EXPIRY) {
    throw OneTouchError.invalid('EXP', 'is too far in the future (COLLECT_MAX_EXPIRY)');
  }
  const id = randomBytes(32).toString('base64url');
  await db.insert(collectOneTouchPayments).values({
    appId: credential.appId,
    id,
    deviceId: credential.deviceId,
    kind: 'registered',
    state: 'initialized',
    expiresAt,
  });
  return { id, expiresAt };
}

/** What a payment asks for, as the request gives it. */
export interface PaymentTerms {
  id: string;
  /** Stotinki. */
  amount: number;
  recipient: string;
  recipientType: 'KIN' | 'GSM' | 'EMAIL';
  description: string;
  reason: string;
}

/** A paired device's payment: its terms, the instrument it names (PINS) and what the payer shows. */
export interface RegisteredPayment extends PaymentTerms {
  pins: string | undefined;
  show: string;
}

interface PaymentRequest extends PaymentTerms {
  appId: string;
  deviceId: string;
  kind: 'registered' | 'noreg';
  instrumentId: string | null;
  show: string;
  saveCard: string | null;
}

/** A valid phone number in international form (+359..., 00359...), on libphonenumber's metadata. */
const isPhoneNumber = (text: string) =>
  parsePhoneNumberFromString(text.trim().replace(/^00/, '+'))?.isValid() === true;

function assertRecipient(type: 'KIN' | 'GSM' | 'EMAIL', recipient: string): void {
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

async function loadDevice(deps: UseCaseDeps, appId: string, deviceId: string) {
  const [device] = await deps.db
    .select()
    .from(collectOneTouchDevices)
    .where(and(eq(collectOneTouchDevices.appId, appId), eq(collectOneTouchDevices.deviceId, deviceId)))
    .limit(1);
  // A live token implies a registered device; this guards against a device row removed by hand.
  if (!device) throw new OneTouchError(401, 'INVALID_TOKEN', 'The device is not registered', 'DEVICEID');
  return device;
}

async function loadPayment(deps: UseCaseDeps, appId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await deps.db
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

/** The device's card when PINS names it or is absent; INVALID_PARAMETER for any other instrument. */
function chooseInstrument(device: { instrumentId: string }, pins: string | undefined): string {
  if (pins !== undefined && pins !== device.instrumentId) {
    throw OneTouchError.invalid('PINS', 'not a payment instrument of this device');
  }
  return device.instrumentId;
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
async function sendPayment(deps: UseCaseDeps, request: PaymentRequest): Promise<PaymentRow> {
  const { db } = deps;
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
  const existing = await loadPayment(deps, request.appId, request.id);
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
      : await loadPayment(deps, request.appId, request.id);
  if (!recorded || recorded.state === 'initialized') {
    throw new Error(`payment ${request.id}: lost a race that nobody won`);
  }
  if (!sameRequest(recorded, request)) {
    throw idConflict('ID was already used for a payment with other parameters');
  }
  return recorded;
}

/** A previewed payment: the instrument that would pay it and whether the sandbox card would. */
export interface PaymentPreview {
  id: string;
  amount: number;
  instrumentId: string;
  approved: boolean;
}

/** Previews a payment of a paired device (payment/check); records nothing. */
export async function checkPayment(
  deps: UseCaseDeps,
  { credential, payment }: { credential: DeviceCredential; payment: RegisteredPayment },
): Promise<PaymentPreview> {
  await requireDeviceToken(deps, credential);
  const device = await loadDevice(deps, credential.appId, credential.deviceId);
  assertRecipient(payment.recipientType, payment.recipient);
  const instrumentId = chooseInstrument(device, payment.pins);
  const existing = await loadPayment(deps, credential.appId, payment.id);
  if (existing && existing.state !== 'initialized') throw idConflict('ID was already used for a payment');
  if (existing) assertUsableReservation(existing, credential.deviceId, new Date());
  return {
    id: payment.id,
    amount: payment.amount,
    instrumentId,
    approved: payment.amount <= SANDBOX_CARD_LIMIT,
  };
}

/**
 * A paired device's payment (payment/send/status), made the first time its ID is used and reported
 * (never paid again) when the same request is repeated. A declined payment is answered too: its row's
 * state says so.
 */
export async function sendRegisteredPayment(
  deps: UseCaseDeps,
  { credential, payment }: { credential: DeviceCredential; payment: RegisteredPayment },
): Promise<PaymentRow> {
  await requireDeviceToken(deps, credential);
  const device = await loadDevice(deps, credential.appId, credential.deviceId);
  assertRecipient(payment.recipientType, payment.recipient);
  const { pins, ...terms } = payment;
  return sendPayment(deps, {
    ...terms,
    appId: credential.appId,
    deviceId: credential.deviceId,
    kind: 'registered',
    instrumentId: chooseInstrument(device, pins),
    saveCard: null,
  });
}

/**
 * A payment without a paired device (payment/noreg/send/status), authenticated by the CHECKSUM of every
 * parameter as received (keyed with the application SECRET); idempotent per APPID + ID.
 */
export async function sendUnpairedPayment(
  deps: UseCaseDeps,
  request: {
    appId: string;
    deviceId: string;
    /** Every parameter as received, including ones this gateway does not use. */
    params: Record<string, string>;
    checksum: string;
    payment: PaymentTerms;
    saveCard: string;
  },
): Promise<PaymentRow> {
  const application = await loadOneTouchApp(deps.db, deps.config, request.appId);
  if (!application) throw new OneTouchError(401, 'INVALID_APP', 'APPID names no application', 'APPID');
  if (!verifyOneTouchChecksum(request.params, request.checksum, application.secret)) {
    throw new OneTouchError(401, 'INVALID_CHECKSUM', 'CHECKSUM does not match the parameters', 'CHECKSUM');
  }
  assertRecipient(request.payment.recipientType, request.payment.recipient);
  return sendPayment(deps, {
    ...request.payment,
    appId: request.appId,
    deviceId: request.deviceId,
    kind: 'noreg',
    instrumentId: null,
    show: 'KIN',
    saveCard: request.saveCard,
  });
}
