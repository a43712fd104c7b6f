import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import type { LendingEnv } from './context.ts';

/**
 * The lending tenant's merchant notification receiver (decisions 0041, 0045) at
 * `/lending/collect/notifications/{tenantId}`: the form is read here, its checks and what each line
 * does are application/lending/collect-notifications.ts. Outside the spec's PublicApi tree: the caller
 * is the gateway, not a tenant's key.
 */

const route = createRoute({
  method: 'post',
  path: '/collect/notifications/{tenantId}',
  tags: ['Collection gateway notifications'],
  summary: 'Merchant notifications of the tenant’s cash payouts (called by the collection gateway)',
  description:
    'The notify URL of the tenant’s merchant at the collection gateway (decision 0041). Form fields `ENCODED`, ' +
    '`CHECKSUM` (HMAC-SHA1 with the merchant secret) and `SIGNATURE` (RSA-SHA256 by the gateway’s published key); ' +
    'answers one `INVOICE=<n>:STATUS=OK|NO|ERR` line per invoice, or `ERR=...` for a packet that fails its checks.',
  security: [],
  request: {
    params: z.object({
      tenantId: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: 'tenantId', in: 'path' } }),
    }),
    // The form (ENCODED, CHECKSUM, SIGNATURE) is read by the handler: its refusals are the protocol's text.
  },
  responses: {
    200: {
      description: 'One reply line per invoice (or `ERR=Not valid CHECKSUM` / `ERR=Not valid SIGNATURE`)',
      content: {
        'text/plain': {
          schema: z.string().openapi({ example: 'INVOICE=ten_1f2e3d4c5b6a7988-482913675-1:STATUS=OK\n' }),
        },
      },
    },
    // Text answers (ePay's lines), written by the handler.
    400: { description: '`ERR=MISSING_FIELD` and `FIELD=<name>` (text/plain)' },
    404: { description: '`ERR=unknown merchant` (text/plain): no merchant is configured for the tenant' },
  },
});

/** Mounts the receiver on the lending app (beside the PublicApi operations, without their key gate). */
export function registerCollectNotificationRoute(app: OpenAPIHono<LendingEnv>): void {
  app.openapi(route, async (c) => {
    const { tenantId } = c.req.param();
    const text = (body: string, status: 200 | 400 | 404) =>
      c.body(body, status, { 'content-type': 'text/plain; charset=utf-8' });
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const [encoded, checksum, signature] = [field('ENCODED'), field('CHECKSUM'), field('SIGNATURE')];
    const missing = [
      ['ENCODED', encoded],
      ['CHECKSUM', checksum],
      ['SIGNATURE', signature],
    ].find(([, value]) => !value)?.[0];
    if (missing) return text(`ERR=MISSING_FIELD\nFIELD=${missing}\n`, 400);
    const answer = await lending.receiveCollectNotification(c.get('deps'), {
      tenantId,
      encoded,
      checksum,
      signature,
    });
    return text(answer.body, answer.status);
  });
}
