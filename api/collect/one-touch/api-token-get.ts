import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter, identifier } from './parameters.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

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
    answerOneTouch(c, async (deps) => {
      const query = c.req.valid('query');
      const issued = await collect.issueDeviceToken(deps, {
        appId: query.APPID,
        deviceId: query.DEVICEID,
        code: query.CODE,
      });
      return c.json(
        {
          status: 'OK' as const,
          TOKEN: issued.token,
          EXPIRES: Math.floor(issued.expiresAt.getTime() / 1000),
          KIN: issued.kin,
          REALNAME: 'Sandbox User',
        },
        200,
      );
    }),
});
