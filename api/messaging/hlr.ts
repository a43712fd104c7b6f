import { randomUUID } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { HlrResult } from '../../activities/messaging/hlr.ts';
import { messagingHlrLookups } from '../../db/schema/messaging.ts';
import { normaliseNumber } from '../../domain/messaging/phone.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { type HlrLookupInput, hlrLookup, hlrWorkflowId } from '../../workflows/messaging/hlr-lookup.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import type { MessagingEnv } from './auth.ts';

/**
 * Asynchronous number lookup (HLR): the request is accepted at once, a workflow (`hlr-<id>`) asks the
 * HLR provider and POSTs the result to `callBackUrl` as a signed `hlr.result` webhook, retried with
 * backoff until the receiver answers 2xx.
 */

const hlrResultSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Id of the lookup', example: '3f1c2b9e-8a44-4c55-b3a3-0d6f0c3e2a11' }),
    error: z
      .string()
      .nullable()
      .openapi({
        description:
          'null on success; otherwise `unknown_subscriber`, `absent_subscriber` (handset unreachable) or ' +
          '`lookup_failed` (the HLR could not be reached in time)',
        example: null,
      }),
    imsi: z.string().nullable().openapi({ example: '284011234567890' }),
    country: z
      .string()
      .nullable()
      .openapi({ description: 'ISO 3166-1 alpha-2 country of the network', example: 'BG' }),
    operatorId: z
      .string()
      .nullable()
      .openapi({ description: 'MCC+MNC of the serving network', example: '28401' }),
    mcc: z.string().nullable().openapi({ example: '284' }),
    mnc: z.string().nullable().openapi({ example: '01' }),
    ported: z
      .array(z.string())
      .openapi({ description: 'MCC+MNC of networks the number was ported from', example: [] }),
  })
  .openapi('HlrResult');

const lookupSchema = z
  .object({
    id: z.string(),
    number: z.string().openapi({ description: 'The number looked up, E.164', example: '+359888123456' }),
    status: z.enum(['pending', 'completed', 'failed']).openapi({
      description:
        'pending → completed (the HLR answered; see `result.error`) or failed (`result.error` = lookup_failed)',
    }),
    callBackUrl: z.string(),
    result: hlrResultSchema
      .nullable()
      .openapi({ description: 'The result as sent to callBackUrl; null while pending' }),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .openapi('HlrLookup');

const lookupRoute = createRoute({
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
});

const getLookupRoute = createRoute({
  method: 'get',
  path: '/hlr/{id}',
  tags: ['Number lookup'],
  summary: 'Get a number lookup and its result',
  request: { params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The lookup', content: { 'application/json': { schema: lookupSchema } } },
    ...errorResponses,
  },
});

export function registerHlrRoutes(app: OpenAPIHono<MessagingEnv>): void {
  app.openapi(lookupRoute, async (c) => {
    const { db, temporal, config } = c.get('deps');
    const accountId = c.get('accountId');
    const body = c.req.valid('json');
    const number = normaliseNumber(body.number);
    if (!number) throw ApiError.field('number', 'not a valid phone number in international format');

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
  });

  app.openapi(getLookupRoute, async (c) => {
    const [row] = await c
      .get('deps')
      .db.select()
      .from(messagingHlrLookups)
      .where(
        and(
          eq(messagingHlrLookups.id, c.req.valid('param').id),
          eq(messagingHlrLookups.accountId, c.get('accountId')),
        ),
      );
    if (!row) throw ApiError.notFound('HLR lookup');
    return c.json(
      {
        id: row.id,
        number: row.number,
        status: row.status,
        callBackUrl: row.callBackUrl,
        result: (row.result as HlrResult | null) ?? null,
        createdAt: row.createdAt.toISOString(),
        completedAt: row.completedAt?.toISOString() ?? null,
      },
      200,
    );
  });
}
