import { z } from '@hono/zod-openapi';
import { HOOK_BODY_FORMATS, HOOK_EVENTS } from '../../domain/openbanking/hook-events.ts';

/**
 * Hooks, as the hook operations answer them (use cases: application/openbanking/hooks.ts): `POST /api/{6,7,8,9}/createhook` registers a URL called back when adding IBANs or a payment
 * finishes, and returns its hook hash; `PUT /api/{6,7,8}/redirect` attaches the URL the user's browser is
 * sent to when the process finishes.
 *
 * Owner: the caller. With x-user-hash (or a user token) the hook is the user's; with x-agent-hash it is
 * the agent's, usable for all its users; version 9 also accepts x-public-hash (the agent's public tier).
 * With none of them 401. A hook hash is an identifier, not a credential: every use checks its owner.
 */

/** How a hook's calls are written (decision 0064). */
export const hookBodyFormatField = z.enum(HOOK_BODY_FORMATS).openapi({
  description:
    '`envelope` (default): `application/json` body `{"type","timestamp","data":{"jws"}}` whose ' +
    '`webhook-signature` any Standard Webhooks library verifies with its defaults; `data.jws` is the ' +
    'event, a compact JWS verified with the JWKS. `jose`: the bare compact JWS as the body ' +
    '(`application/jose`), as release 0.1.0 sent it (hooks registered before keep it)',
  example: 'envelope',
});

export const hookSchema = z
  .object({
    hookHash: z
      .string()
      .openapi({ description: 'Pass it to the consent and payment operations', example: 'hook_Xc2...' }),
    url: z.string(),
    redirectUrl: z.string().nullable(),
    events: z.array(z.enum(HOOK_EVENTS)),
    bodyFormat: hookBodyFormatField,
    owner: z
      .enum(['user', 'agent'])
      .openapi({ description: 'Registered by a user, or by the agent for all its users' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Hook');
