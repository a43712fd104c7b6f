import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { obHooks } from '../../db/schema/openbanking.ts';
import { HOOK_EVENTS } from '../../domain/openbanking/hook-events.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { hookCaller, hookSchema, toHookRecord } from './hook-records.ts';
import { security } from './identity.ts';
import { webUrlField } from './user-records.ts';

/**
 * `POST /api/{6,7,8,9}/createhook`: registers a URL called back when adding IBANs or a payment finishes,
 * and returns its hook hash. Owner: the caller (user, else agent; version 9 also the public hash).
 */

/** AdditionalURLsHookDTO: the hook's URL plus the additional (redirect) URL and the events it wants. */
const hookBody = z
  .object({
    url: webUrlField.openapi({ description: 'Called back (POST) when a result is available' }),
    redirectUrl: webUrlField.optional().openapi({
      description: 'Where the user’s browser is sent when the process finishes',
      example: 'https://agent.example.com/done',
    }),
    events: z
      .array(z.enum(HOOK_EVENTS))
      .min(1)
      .max(HOOK_EVENTS.length)
      .optional()
      .openapi({ description: 'Events to receive; all when omitted', example: ['consent.finished'] }),
  })
  .openapi('AdditionalURLsHookDTO');

export const createhookOperation = defineOperation({
  versions: [6, 7, 8, 9],
  route: (v) =>
    createRoute({
      method: 'post',
      path: '/createhook',
      operationId: 'createHook',
      tags: ['Hooks'],
      summary: 'Register a hook',
      description:
        'Registers a callback URL and returns its `hookHash`. Body: AdditionalURLsHookDTO. The caller owns it: ' +
        (v === 9
          ? '`x-user-hash`, `x-agent-hash` or (version 9) `x-public-hash`; '
          : '`x-user-hash` or `x-agent-hash`; ') +
        'with none of them 401.',
      security:
        v === 9
          ? security(['userHash'], ['userToken'], ['agentHash'], ['publicHash'])
          : security(['userHash'], ['userToken'], ['agentHash']),
      request: { body: jsonBody(hookBody) },
      responses: {
        201: { description: 'Registered', content: { 'application/json': { schema: hookSchema } } },
        ...errorResponses,
      },
    }),
  handler: (v) => async (c) => {
    const caller = await hookCaller(c, { publicHash: v === 9 });
    const body = c.req.valid('json');
    assertOutboundUrlField(c.get('deps').config, 'url', body.url);
    assertOutboundUrlField(c.get('deps').config, 'redirectUrl', body.redirectUrl);
    const [row] = await c
      .get('deps')
      .db.insert(obHooks)
      .values({
        hookHash: `hook_${randomBytes(24).toString('base64url')}`,
        agentId: caller.agentId,
        userId: caller.userId ?? null,
        url: body.url,
        redirectUrl: body.redirectUrl ?? null,
        events: body.events ? [...new Set(body.events)] : [...HOOK_EVENTS],
      })
      .returning();
    return c.json(toHookRecord(row!), 201);
  },
});
