import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { collect, type DeskOperator } from '../../../application/collect/index.ts';
import { Refusal } from '../../../application/shared/refusal.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../domain/collect/desk.ts';
import type { AppEnv } from '../../shared/context.ts';
import { errorBodySchema } from '../../shared/errors.ts';

/**
 * The desk API's credential: `Authorization: Bearer dsk_...`, a session token from POST
 * /desk/api/sessions. Only the header counts (never the desk page's cookie), so a page elsewhere cannot
 * make a browser call the API. Checked before the request is validated (401 before 400).
 */

export const DESK_SECURITY = [{ deskSession: [] }];

const operators = new WeakMap<Request, DeskOperator>();

export const requireDeskOperator = createMiddleware<AppEnv>(async (c, next) => {
  const token = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  const operator = token ? await collect.operatorOfSession(c.get('deps'), { token }) : undefined;
  if (!operator) {
    c.header('www-authenticate', 'Bearer realm="cash desk"');
    throw Refusal.unauthorized('Missing or invalid desk session (Authorization: Bearer <token>)');
  }
  operators.set(c.req.raw, operator);
  await next();
});

/** The operator requireDeskOperator authenticated for this request. */
export function deskOperatorOf(c: Context<AppEnv>): DeskOperator {
  const operator = operators.get(c.req.raw);
  if (!operator) throw Refusal.unauthorized();
  return operator;
}

/** The Idempotency-Key header every desk payment and payout carries. */
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, '8-128 letters, digits or ._:-')
    .openapi({
      description:
        'The desk’s own id of this operation (e.g. a UUID): repeating the request with the same key answers ' +
        'the same receipt (or the same refusal) and does nothing again.',
      example: '6f1d2c1e-8a7b-4b1e-9a51-2f7c0c7d9e10',
    }),
});

const json = { 'application/json': { schema: errorBodySchema } };

/** The error answers of the desk API. */
export const deskErrorResponses = {
  400: { description: 'Validation failed; `fields` names each offending field', content: json },
  401: { description: 'No valid desk session', content: json },
  404: { description: 'No such IDN (or receipt of this operator)', content: json },
} as const;

export const deskConflictResponses = {
  409: {
    description:
      '`already_paid`, `expired`, `already_final`, `wrong_kind`; billing IDNs: `billing_invalid_amount`, ' +
      '`billing_no_obligation`',
    content: json,
  },
  422: {
    description:
      '`identity_mismatch` (payout), `idempotency_key_reused` (the key was used for another request)',
    content: json,
  },
  502: { description: '`billing_bad_reply`, `billing_checksum_rejected`, `billing_error`', content: json },
  503: { description: '`billing_unavailable`', content: json },
} as const;
