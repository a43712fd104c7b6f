import type { Context } from 'hono';
import type { TppMessageCode } from '../../domain/openbanking/xs2a.ts';

/**
 * The error answer of every sandbox XS2A endpoint: a Berlin Group `tppMessages` body with the status code
 * the specification gives its message code.
 */

const STATUS_OF: Record<TppMessageCode, 400 | 401 | 403 | 404 | 405 | 409 | 429 | 500 | 503> = {
  FORMAT_ERROR: 400,
  PSU_CREDENTIALS_INVALID: 401,
  RESOURCE_EXPIRED: 403,
  STATUS_INVALID: 409,
  PAYMENT_FAILED: 400,
  PRODUCT_UNKNOWN: 404,
  CANCELLATION_INVALID: 405,
  SIGNATURE_MISSING: 400,
  SIGNATURE_INVALID: 401,
  CERTIFICATE_INVALID: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  CONSENT_INVALID: 401,
  CONSENT_EXPIRED: 401,
  CONSENT_UNKNOWN: 403,
  RESOURCE_UNKNOWN: 404,
  ACCESS_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export function tppError(c: Context, code: TppMessageCode, text: string, path?: string): Response {
  return c.json(
    { tppMessages: [{ category: 'ERROR', code, text, ...(path ? { path } : {}) }] },
    STATUS_OF[code],
  );
}
