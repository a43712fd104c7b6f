import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { messagingHlrLookups } from '../../db/schema/messaging.ts';
import { normaliseNumber } from '../../domain/messaging/phone.ts';
import { type HlrLookupInput, hlrWorkflowId } from '../../domain/messaging/processes.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { hlrLookup } from '../../workflows/messaging/hlr.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
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
  handler: () => async (c) => {
    const { db, temporal, config } = c.get('deps');
    const accountId = c.get('accountId');
    const body = c.req.valid('json');
    const number = normaliseNumber(body.number);
    if (!number) throw Refusal.field('number', 'not a valid phone number in international format');
    assertOutboundUrlField(config, 'callBackUrl', body.callBackUrl);

    const id = randomUUID();
    await db
      .insert(messagingHlrLookups)
      .values({ id, accountId, number: number.e164, callBackUrl: body.callBackUrl, status: 'pending' });
    const input: HlrLookupInput = {
      lookupId: id,
      accountId,
      number: number.e164,
      numberCountry: number.countryIso ?? null,
      callBackUrl: body.callBackUrl,
      lookupTimeoutMs: config.HLR_LOOKUP_TIMEOUT,
    };
    try {
      await temporal.workflow.start(hlrLookup, {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: hlrWorkflowId(id),
        args: [input],
        typedSearchAttributes: [
          { key: PlatformService, value: 'messaging' },
          { key: OwnerId, value: accountId },
          { key: BusinessStatus, value: 'pending' },
        ],
        staticSummary: `HLR lookup of ${number.e164}`,
      });
    } catch (error) {
      // No workflow, no result: do not leave a lookup behind that stays pending for ever.
      await db.delete(messagingHlrLookups).where(eq(messagingHlrLookups.id, id));
      throw error;
    }
    return c.json({ id, number: number.e164, status: 'pending' as const }, 202);
  },
});
