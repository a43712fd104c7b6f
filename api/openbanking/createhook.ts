import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { assertOutboundUrlField } from '../../application/shared/outbound-url.ts';
import { HOOK_EVENTS } from '../../domain/openbanking/hook-events.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { hookBodyFormatField, hookSchema } from './hook-schemas.ts';
import { hookCaller, security } from './identity.ts';
import { webUrlField } from './user-schemas.ts';

/**
 * `POST /api/{6,7,8,9}/createhook`: registers a URL called back when adding IBANs or a payment finishes,
 * and returns its hook hash. Owner: the caller (user, else agent; version 9 also the public hash).
 * The hook's calls go to the agent's webhook endpoint for that URL (decision 0022), created here with
 * its signing secret, so the secret is known before the first call; it is answered to the agent only
 * (the endpoint's owner): a user or public-hash caller could otherwise name the agent's receiver URL
 * and read the secret that lets it forge the agent's hook calls.
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
    bodyFormat: hookBodyFormatField.optional(),
  })
  .openapi('AdditionalURLsHookDTO');

const createdHookSchema = hookSchema
  .extend({
    webhookEndpointId: z.string().openapi({
      description: 'The agent’s webhook endpoint the hook calls go to (one per agent and URL)',
      example: 'whe_5b1e0c7a9d3f2e4b6a8c0d1e',
    }),
    signingSecret: z
      .string()
      .nullable()
      .openapi({
        description:
          'The endpoint’s Standard Webhooks signing secret: every hook call carries `webhook-id`, ' +
          '`webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of ' +
          '"<webhook-id>.<webhook-timestamp>.<body>", keyed with the base64-decoded part after `whsec_`, over ' +
          'the body as sent: the JSON envelope, or the JWS text with `bodyFormat: jose`) besides the JWS itself. Answered only when the agent (`x-agent-hash`) ' +
          'registers the hook, null otherwise: the agent reads it by registering a hook for the same URL',
        example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      }),
  })
  .openapi('CreatedHook');

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
        201: {
          description: 'Registered, with the webhook endpoint its calls go to',
          content: { 'application/json': { schema: createdHookSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: (v) => async (c) => {
    const caller = await hookCaller(c, { publicHash: v === 9 });
    const body = c.req.valid('json');
    const { config } = c.get('deps');
    assertOutboundUrlField(config, 'url', body.url);
    assertOutboundUrlField(config, 'redirectUrl', body.redirectUrl);
    return c.json(await openbanking.createHook(c.get('deps'), { caller, ...body }), 201);
  },
});
