import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { type ErrorBody, type FieldError, Refusal } from '../../application/shared/refusal.ts';

/**
 * The one error model of every JSON service of the platform:
 *   { "error": { "code": "validation_failed", "message": "...", "fields": [{ "field": "to", "message": "..." }] } }
 * `code` is machine-readable and stable; `fields` names every offending field of a validation error.
 */
export const fieldErrorSchema = z.object({
  field: z.string().openapi({ example: 'to', description: 'Dotted path of the offending field' }),
  message: z.string().openapi({ example: 'not a valid phone number' }),
});

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_failed' }),
      message: z.string().openapi({ example: 'The request is not valid' }),
      fields: z.array(fieldErrorSchema).optional(),
    }),
  })
  .openapi('Error');

export function fieldErrorsOf(error: ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join('.') : '(body)',
    message: issue.message,
  }));
}

/** `defaultHook` of every OpenAPIHono app: zod validation failures become 400 with the fields named. */
export function validationHook(result: { success: true } | { success: false; error: ZodError }, c: Context) {
  if (!result.success) {
    return c.json(Refusal.validation(fieldErrorsOf(result.error)).body(), 400);
  }
  return undefined;
}

const HTTP_ERROR_CODES: Partial<Record<number, string>> = {
  400: 'malformed_request',
  401: 'unauthorized',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/** Maps anything thrown by a handler to the error model; unexpected errors are logged, never shown. */
export function toErrorResponse(
  error: unknown,
  c: Context,
  logUnexpected: (error: unknown) => void,
): Response {
  if (error instanceof Refusal) {
    if (error.retryAfterSeconds !== undefined) c.header('retry-after', String(error.retryAfterSeconds));
    return c.json(error.body(), error.status);
  }
  if (error instanceof HTTPException) {
    // Hono raises these for malformed bodies and similar protocol errors.
    const status = error.status as ContentfulStatusCode;
    const code = HTTP_ERROR_CODES[status] ?? 'http_error';
    const body: ErrorBody = { error: { code, message: error.message || 'Bad request' } };
    return c.json(body, status);
  }
  // decodeURIComponent of a parameter that was percent-encoded twice (or badly): the caller's mistake.
  if (error instanceof URIError) {
    return c.json(
      new Refusal(400, 'malformed_request', 'A parameter is not valid percent-encoded UTF-8').body(),
      400,
    );
  }
  logUnexpected(error);
  return c.json(new Refusal(500, 'internal_error', 'Internal error').body(), 500);
}

/** Shared OpenAPI response entries for the documented errors. */
export const errorResponses = {
  400: {
    description: 'Validation failed; `fields` names each offending field',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  401: {
    description: 'Missing or invalid credentials',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  404: {
    description: 'Not found (or owned by someone else)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;
