import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceIdParameter, identifier, text } from './parameters.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/**
 * GET /xdev/api/api/code/get: registers the device with the application and hands out a short-lived,
 * single-use pairing code. The customer's consent (ePay.bg's hosted authorisation page) is simulated:
 * the sandbox user is deemed to have authorised the device, so the code is answered at once.
 */

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
    answerOneTouch(c, async (deps) => {
      const query = c.req.valid('query');
      const { code } = await collect.pairDevice(deps, {
        appId: query.APPID,
        deviceId: query.DEVICEID,
        key: query.KEY,
        described: {
          deviceName: query.DEVICE_NAME ?? null,
          brand: query.BRAND ?? null,
          os: query.OS ?? null,
          model: query.MODEL ?? null,
          osVersion: query.OS_VERSION ?? null,
          phone: query.PHONE ?? null,
          userType: query.UTYPE ?? null,
        },
      });
      return c.json({ status: 'OK' as const, code }, 200);
    }),
});
