import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { oneTouchAppExists } from '../../../activities/collect/one-touch-apps.ts';
import type { Database } from '../../../db/client.ts';
import {
  collectOneTouchCodes,
  collectOneTouchDevices,
  collectOneTouchTokens,
} from '../../../db/schema/collect-one-touch.ts';
import type { AppEnv } from '../../shared/context.ts';
import { answerOneTouch, OneTouchError, oneTouchErrorResponses } from './responses.ts';

/**
 * Pairing a device with an application: `code/get` registers the device and hands out a short-lived,
 * single-use code; `token/get` exchanges it for an access token bound to that application and device;
 * `token/invalidate` ends the token. In this gateway the customer's consent (ePay.bg's hosted
 * authorisation page) is simulated: the sandbox user is deemed to have authorised the device, so
 * `code/get` answers the code at once (docs/collect.md, decision 0013).
 */

/** SHA-256 hex: codes and tokens are kept only as hashes. */
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const text = (max: number) => z.string().min(1).max(max);
/** Printable identifiers without spaces, as apps send them. */
const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'printable characters without spaces');

export const appIdParameter = identifier(128).openapi({
  description: 'Application id (issued with the application)',
  example: '2143960160650364377823089976443473298565',
});
export const deviceIdParameter = identifier(128).openapi({
  description:
    'Unique id of the device (Vendor ID on iOS, ANDROID_ID on Android, or a stored UUID on the web)',
  example: 'b7f4c2e0-9d1a-4e55-8a61-3c2f9b0d7e11',
});
export const tokenParameter = identifier(200).openapi({
  description: 'Access token from `token/get`',
  example: 'ot_3q2-7wEXAMPLE',
});

const codeGetRoute = createRoute({
  method: 'get',
  path: '/xdev/api/api/code/get',
  tags: ['One-touch'],
  summary: 'Register a device and get a pairing code',
  description:
    'Registers the device with the application (its descriptive fields are kept and updated on later calls) ' +
    'and answers a pairing code, valid for COLLECT_ONE_TOUCH_CODE_TTL (2 minutes) and usable once with ' +
    '`token/get`. DEVICEID + KEY must be unique: a KEY already used by this device answers 409 ' +
    '`KEY_ALREADY_USED`. Sandbox: the user is deemed to have authorised the device.',
  request: {
    query: z.object({
      APPID: appIdParameter,
      DEVICEID: deviceIdParameter,
      KEY: identifier(64).openapi({ description: 'A key unique per device and pairing', example: '48213' }),
      UTYPE: z
        .enum(['1', '2'])
        .optional()
        .openapi({ description: '1: registered users only, 2: card users only (recorded)', example: '2' }),
      DEVICE_NAME: text(100).optional().openapi({ example: "Maria's phone" }),
      BRAND: text(100).optional().openapi({ example: 'Google' }),
      OS: text(50).optional().openapi({ example: 'android' }),
      MODEL: text(100).optional().openapi({ example: 'Pixel 8' }),
      OS_VERSION: text(50).optional().openapi({ example: '15' }),
      PHONE: text(32).optional().openapi({ example: '+359888123456' }),
    }),
  },
  responses: {
    200: {
      description: 'The pairing code',
      content: {
        'application/json': {
          schema: z.object({
            status: z.literal('OK'),
            code: z.string().openapi({ description: 'Exchange it with `token/get`', example: '9f2c…' }),
          }),
        },
      },
    },
    ...oneTouchErrorResponses,
    409: { description: '`KEY_ALREADY_USED`', content: oneTouchErrorResponses[400].content },
  },
});

const tokenGetRoute = createRoute({
  method: 'get',
  path: '/xdev/api/api/token/get',
  tags: ['One-touch'],
  summary: 'Exchange a pairing code for an access token',
  description:
    'The code must come from `code/get` of the same APPID and DEVICEID, be unused and unexpired; otherwise ' +
    '400 `INVALID_CODE`. The token is bound to the application and device and is shown once.',
  request: {
    query: z.object({
      APPID: appIdParameter,
      DEVICEID: deviceIdParameter,
      CODE: identifier(100).openapi({ description: 'Code from `code/get`', example: '9f2c…' }),
    }),
  },
  responses: {
    200: {
      description: 'The access token',
      content: {
        'application/json': {
          schema: z.object({
            status: z.literal('OK'),
            TOKEN: z.string().openapi({ description: 'Access token; only its hash is kept' }),
            EXPIRES: z
              .number()
              .int()
              .openapi({ description: 'Expiry, Unix time (seconds)', example: 1_800_000_000 }),
            KIN: z
              .string()
              .openapi({ description: "The sandbox user's client number", example: '6051143866' }),
            REALNAME: z.string().openapi({ example: 'Sandbox User' }),
          }),
        },
      },
    },
    ...oneTouchErrorResponses,
  },
});

const invalidateRoute = createRoute({
  method: 'get',
  path: '/xdev/api/api/token/invalidate',
  tags: ['One-touch'],
  summary: 'Invalidate an access token',
  description: 'Ends the token at once; it is refused from then on (401 `INVALID_TOKEN`).',
  request: { query: z.object({ APPID: appIdParameter, DEVICEID: deviceIdParameter, TOKEN: tokenParameter }) },
  responses: {
    200: {
      description: 'Invalidated',
      content: { 'application/json': { schema: z.object({ status: z.literal('OK') }) } },
    },
    ...oneTouchErrorResponses,
  },
});

export async function requireApp(db: Database, appId: string): Promise<void> {
  if (!(await oneTouchAppExists(db, appId))) {
    throw new OneTouchError(401, 'INVALID_APP', 'APPID names no application', 'APPID');
  }
}

const invalidToken = () =>
  new OneTouchError(401, 'INVALID_TOKEN', 'TOKEN is not valid for this application and device', 'TOKEN');

/** A device's call: the application exists (INVALID_APP) and the token is live for it and the device. */
export async function requireDeviceToken(
  db: Database,
  query: { APPID: string; DEVICEID: string; TOKEN: string },
): Promise<{ tokenId: string }> {
  await requireApp(db, query.APPID);
  return requireToken(db, query.APPID, query.DEVICEID, query.TOKEN);
}

/** The token's id when it is live and bound to this application and device; INVALID_TOKEN otherwise. */
async function requireToken(
  db: Database,
  appId: string,
  deviceId: string,
  token: string,
): Promise<{ tokenId: string }> {
  const [row] = await db
    .select({ id: collectOneTouchTokens.id })
    .from(collectOneTouchTokens)
    .where(
      and(
        eq(collectOneTouchTokens.tokenHash, sha256(token)),
        eq(collectOneTouchTokens.appId, appId),
        eq(collectOneTouchTokens.deviceId, deviceId),
        isNull(collectOneTouchTokens.invalidatedAt),
        gt(collectOneTouchTokens.expiresAt, new Date()),
      ),
    )
    .limit(1);
  if (!row) throw invalidToken();
  return { tokenId: row.id };
}

/** The sandbox user's client number: 10 digits, not starting with 0. */
const generateKin = () => String(randomInt(1_000_000_000, 10_000_000_000));

export function registerOneTouchPairingRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(codeGetRoute, (c) =>
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      await requireApp(db, query.APPID);
      const code = randomBytes(16).toString('hex');
      const expiresAt = new Date(Date.now() + c.get('deps').config.COLLECT_ONE_TOUCH_CODE_TTL);
      const described = {
        deviceName: query.DEVICE_NAME ?? null,
        brand: query.BRAND ?? null,
        os: query.OS ?? null,
        model: query.MODEL ?? null,
        osVersion: query.OS_VERSION ?? null,
        phone: query.PHONE ?? null,
        userType: query.UTYPE ?? null,
      };
      const issued = await db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(collectOneTouchCodes)
          .values({
            appId: query.APPID,
            deviceId: query.DEVICEID,
            key: query.KEY,
            codeHash: sha256(code),
            expiresAt,
          })
          .onConflictDoNothing()
          .returning({ id: collectOneTouchCodes.id });
        if (!inserted) return false;
        await tx
          .insert(collectOneTouchDevices)
          .values({
            appId: query.APPID,
            deviceId: query.DEVICEID,
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
      return c.json({ status: 'OK' as const, code }, 200);
    }),
  );

  app.openapi(tokenGetRoute, (c) =>
    answerOneTouch(c, async ({ db, config }) => {
      const query = c.req.valid('query');
      await requireApp(db, query.APPID);
      const token = `ot_${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(Date.now() + config.COLLECT_ONE_TOUCH_TOKEN_TTL);
      const device = await db.transaction(async (tx) => {
        // Single use: the update that marks the code used is the one that may issue the token.
        const [used] = await tx
          .update(collectOneTouchCodes)
          .set({ usedAt: new Date() })
          .where(
            and(
              eq(collectOneTouchCodes.codeHash, sha256(query.CODE)),
              eq(collectOneTouchCodes.appId, query.APPID),
              eq(collectOneTouchCodes.deviceId, query.DEVICEID),
              isNull(collectOneTouchCodes.usedAt),
              gt(collectOneTouchCodes.expiresAt, new Date()),
            ),
          )
          .returning({ id: collectOneTouchCodes.id });
        if (!used) return undefined;
        await tx.insert(collectOneTouchTokens).values({
          id: `ott_${randomUUID().replaceAll('-', '')}`,
          appId: query.APPID,
          deviceId: query.DEVICEID,
          tokenHash: sha256(token),
          expiresAt,
        });
        const [row] = await tx
          .select({ kin: collectOneTouchDevices.kin })
          .from(collectOneTouchDevices)
          .where(
            and(
              eq(collectOneTouchDevices.appId, query.APPID),
              eq(collectOneTouchDevices.deviceId, query.DEVICEID),
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
      return c.json(
        {
          status: 'OK' as const,
          TOKEN: token,
          EXPIRES: Math.floor(expiresAt.getTime() / 1000),
          KIN: device.kin,
          REALNAME: 'Sandbox User',
        },
        200,
      );
    }),
  );

  app.openapi(invalidateRoute, (c) =>
    answerOneTouch(c, async ({ db }) => {
      const query = c.req.valid('query');
      const { tokenId } = await requireDeviceToken(db, query);
      await db
        .update(collectOneTouchTokens)
        .set({ invalidatedAt: new Date() })
        .where(and(eq(collectOneTouchTokens.id, tokenId), isNull(collectOneTouchTokens.invalidatedAt)));
      return c.json({ status: 'OK' as const }, 200);
    }),
  );
}
