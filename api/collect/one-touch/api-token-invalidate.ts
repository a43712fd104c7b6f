import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { appIdParameter, deviceCredentialOf, deviceIdParameter, tokenParameter } from './parameters.ts';
import { answerOneTouch, oneTouchErrorResponses } from './responses.ts';

/** GET /xdev/api/api/token/invalidate: ends an access token at once. */

export const apiTokenInvalidateOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/xdev/api/api/token/invalidate',
      tags: ['One-touch'],
      summary: 'Invalidate an access token',
      description: 'Ends the token at once; it is refused from then on (401 `INVALID_TOKEN`).',
      request: {
        query: z.object({ APPID: appIdParameter, DEVICEID: deviceIdParameter, TOKEN: tokenParameter }),
      },
      responses: {
        200: {
          description: 'Invalidated',
          content: { 'application/json': { schema: z.object({ status: z.literal('OK') }) } },
        },
        ...oneTouchErrorResponses,
      },
    }),
  handler: () => (c) =>
    answerOneTouch(c, async (deps) => {
      await collect.invalidateDeviceToken(deps, deviceCredentialOf(c.req.valid('query')));
      return c.json({ status: 'OK' as const }, 200);
    }),
});
