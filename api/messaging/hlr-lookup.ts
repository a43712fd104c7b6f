import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';

/**
 * `POST /hlr`: asynchronous number lookup (HLR). The request is accepted at once, a workflow
 * (`hlr-<id>`) asks the HLR provider and POSTs the result to `callBackUrl` as a signed `hlr.result`
 * webhook, retried with backoff until the receiver answers 2xx.
 */
export const hlrLookupOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/hlr',
      tags: ['Number lookup'],
      summary: 'Look up a number in the HLR (asynchronous)',
      description:
        'Accepts the lookup at once (202). The result (`HlrResult`) is POSTed to `callBackUrl` as a signed webhook with ' +
        'event type `hlr.result`, retried until your endpoint answers 2xx. It can also be read with GET /hlr/{id}.',
      request: {
        body: jsonBody(
          z
            .object({
              number: z
                .string()
                .min(1)
                .max(32)
                .openapi({ description: 'Mobile number, international format', example: '+359888123456' }),
              callBackUrl: z
                // A missing field keeps zod's own message, as everywhere else.
                .url({
                  protocol: /^https?$/,
                  error: (issue) => (issue.input === undefined ? undefined : 'must be an http or https URL'),
                })
                .max(2048)
                .openapi({
                  description: 'Where the result is POSTed',
                  example: 'https://example.com/hlr-results',
                }),
            })
            .openapi('HlrRequest'),
        ),
      },
      responses: {
        202: {
          description: 'Accepted; the result follows at callBackUrl',
          content: {
            'application/json': {
              schema: z
                .object({ id: z.string(), number: z.string(), status: z.literal('pending') })
                .openapi('HlrAccepted'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.startHlrLookup(c.get('deps'), {
        accountId: c.get('accountId'),
        ...c.req.valid('json'),
      }),
      202,
    ),
});
