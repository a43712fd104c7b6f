import { randomBytes, randomInt } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { collectOneTouchCodes, collectOneTouchDevices } from '../../../db/schema/collect-one-touch.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter, identifier, requireApp, sha256, text } from './device-tokens.ts';
import { answerOneTouch, OneTouchError, oneTouchErrorResponses } from './responses.ts';

/**
 * GET /xdev/api/api/code/get: registers the device with the application and hands out a short-lived,
 * single-use pairing code. The customer's consent (ePay.bg's hosted authorisation page) is simulated:
 * the sandbox user is deemed to have authorised the device, so the code is answered at once.
 */

/** The sandbox user's client number: 10 digits, not starting with 0. */
const generateKin = () => String(randomInt(1_000_000_000, 10_000_000_000));

export const apiCodeGetOperation = defineOperation({
  route: () =>
    createRoute({
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
          KEY: identifier(64).openapi({
            description: 'A key unique per device and pairing',
            example: '48213',
          }),
          UTYPE: z.enum(['1', '2']).optional().openapi({
            description: '1: registered users only, 2: card users only (recorded)',
            example: '2',
          }),
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
                code: z.string().openapi({
                  description: 'Exchange it with `token/get`',
                  example: '9f2c4b1e0d3a5c7e9f2c4b1e0d3a5c7e',
                }),
              }),
            },
          },
        },
        ...oneTouchErrorResponses,
        409: { description: '`KEY_ALREADY_USED`', content: oneTouchErrorResponses[400].content },
      },
    }),
  handler: () => (c) =>
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
});
