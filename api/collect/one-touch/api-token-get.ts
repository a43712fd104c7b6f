import { randomBytes, randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, gt, isNull } from 'drizzle-orm';
import {
  collectOneTouchCodes,
  collectOneTouchDevices,
  collectOneTouchTokens,
} from '../../../db/schema/collect-one-touch.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter, identifier, requireApp, sha256 } from './device-tokens.ts';
import { answerOneTouch, OneTouchError, oneTouchErrorResponses } from './responses.ts';

/**
 * GET /xdev/api/api/token/get: exchanges a pairing code from `code/get` (once) for an access token
 * bound to the application and the device.
 */

export const apiTokenGetOperation = defineOperation({
  route: () =>
    createRoute({
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
          CODE: identifier(100).openapi({
            description: 'Code from `code/get`',
            example: '9f2c4b1e0d3a5c7e9f2c4b1e0d3a5c7e',
          }),
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
    }),
  handler: () => (c) =>
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
});
