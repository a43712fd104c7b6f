import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';

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

export type FieldError = z.infer<typeof fieldErrorSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static validation(fields: FieldError[]): ApiError {
    return new ApiError(400, 'validation_failed', 'The request is not valid', fields);
  }

  static field(field: string, message: string, status: ContentfulStatusCode = 400): ApiError {
    return new ApiError(status, 'validation_failed', 'The request is not valid', [{ field, message }]);
  }

  static notFound(what: string): ApiError {
    return new ApiError(404, 'not_found', `${what} not found`);
  }

  static unauthorized(message = 'Missing or invalid credentials'): ApiError {
    return new ApiError(401, 'unauthorized', message);
  }

  static conflict(code: string, message: string): ApiError {
    return new ApiError(409, code, message);
  }

  body(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) },
    };
  }
}

export function fieldErrorsOf(error: ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join('.') : '(body)',
    message: issue.message,
  }));
}

/** `defaultHook` of every OpenAPIHono app: zod validation failures become 400 with the fields named. */
export function validationHook(result: { success: true } | { success: false; error: ZodError }, c: Context) {
  if (!result.success) {
    return c.json(ApiError.validation(fieldErrorsOf(result.error)).body(), 400);
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
  if (error instanceof ApiError) return c.json(error.body(), error.status);
  if (error instanceof HTTPException) {
    // Hono raises these for malformed bodies and similar protocol errors.
    const status = error.status as ContentfulStatusCode;
    const code = HTTP_ERROR_CODES[status] ?? 'http_error';
    return c.json(new ApiError(status, code, error.message || 'Bad request').body(), status);
  }
  // decodeURIComponent of a parameter that was percent-encoded twice (or badly): the caller's mistake.
  if (error instanceof URIError) {
    return c.json(
      new ApiError(400, 'malformed_request', 'A parameter is not valid percent-encoded UTF-8').body(),
      400,
    );
  }
  logUnexpected(error);
  return c.json(new ApiError(500, 'internal_error', 'Internal error').body(), 500);
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
