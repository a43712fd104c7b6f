import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { DEFAULT_PRICE_LIST, messaging } from '../../application/messaging/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { PRICE_LIST_COLUMNS } from '../../domain/messaging/price-lists.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';

/**
 * Operator endpoint of SMS price lists (HTTP twin of `npm run admin -- messaging:price-list`, decision
 * 0056); the use case is application/messaging/price-lists.ts.
 */

const errorContent = errorResponses[400].content;

const uploadRoute = createRoute({
  method: 'put',
  path: '/messaging/price-lists/{scope}',
  tags: ['Admin'],
  summary: "Replace an account's SMS price list, or the default one",
  description:
    `The body is CSV (\`text/csv\`) with a header line naming the columns ${PRICE_LIST_COLUMNS.join(', ')} ` +
    '(any order): country ISO 3166-1 alpha-2, MCC (3 digits), MNC (2 or 3 digits; empty: the whole ' +
    'country), price of one SMS part (decimal, at most 4 decimals), currency ISO 4217. The list replaces ' +
    "the scope's list whole. 400 `price_list_invalid` names every bad row and column in `fields` " +
    '(`line.<n>.<column>`, the header being line 1) and stores nothing; 404 for an unknown account; 413 ' +
    '`price_list_too_large`; 415 for another content type.',
  request: {
    params: z.object({
      scope: z
        .string()
        .regex(/^(default|acc_[A-Za-z0-9_-]{1,100})$/, 'a messaging account id (acc_…) or `default`')
        .openapi({ param: { name: 'scope', in: 'path' }, example: 'default' }),
    }),
    body: {
      required: true,
      content: {
        'text/csv': {
          schema: z
            .string()
            .openapi({ example: 'country,mcc,mnc,price,currency\r\nBG,284,01,0.0250,EUR\r\n' }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Stored',
      content: {
        'application/json': {
          schema: z
            .object({
              scope: z.string().openapi({ example: DEFAULT_PRICE_LIST }),
              rows: z.number().int().openapi({ description: 'Rows stored' }),
              uploadedAt: z.string(),
            })
            .openapi('StoredPriceList'),
        },
      },
    },
    ...errorResponses,
    413: { description: 'Too large', content: errorContent },
    415: { description: 'Not text/csv', content: errorContent },
  },
});

async function csvOfRequest(c: Context<AppEnv>): Promise<string> {
  if (!/^text\/csv\b/i.test(c.req.header('content-type') ?? '')) {
    throw new Refusal(415, 'unsupported_media_type', 'Send the price list as text/csv');
  }
  return c.req.text();
}

export function registerMessagingPriceListAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(uploadRoute, async (c) => {
    const stored = await messaging.uploadPriceList(c.get('deps'), {
      scope: c.req.valid('param').scope,
      text: await csvOfRequest(c),
    });
    return c.json(stored, 200);
  });
}
