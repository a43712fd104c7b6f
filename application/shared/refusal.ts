/**
 * A use case's typed refusal (decision 0046): what the caller asked for cannot be done, with an HTTP
 * status the API layer answers with, a stable machine-readable `code`, a message a person understands
 * and, for validation, the offending fields. The API maps it to the error model (api/shared/errors.ts);
 * nothing here knows about HTTP frameworks.
 */

/** The statuses a refusal may carry (the API's documented error answers). */
export type RefusalStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 409
  | 410
  | 413
  | 415
  | 422
  | 423
  | 429
  | 431
  | 500
  | 502
  | 503
  | 504;

export interface FieldError {
  /** Dotted path of the offending field. */
  field: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: FieldError[] | undefined };
}

export class Refusal extends Error {
  /** For a 429 (or 503): when the caller may try again; the API answers it as `Retry-After` (seconds). */
  retryAfterSeconds?: number;

  constructor(
    readonly status: RefusalStatus,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.name = 'Refusal';
  }

  static validation(fields: FieldError[]): Refusal {
    return new Refusal(400, 'validation_failed', 'The request is not valid', fields);
  }

  static field(field: string, message: string, status: RefusalStatus = 400): Refusal {
    return new Refusal(status, 'validation_failed', 'The request is not valid', [{ field, message }]);
  }

  static notFound(what: string): Refusal {
    return new Refusal(404, 'not_found', `${what} not found`);
  }

  static unauthorized(message = 'Missing or invalid credentials'): Refusal {
    return new Refusal(401, 'unauthorized', message);
  }

  /** 429 with a `Retry-After` of `retryAfterMs`, rounded up to whole seconds (at least 1). */
  static tooManyRequests(code: string, message: string, retryAfterMs: number): Refusal {
    return new Refusal(429, code, message).retryAfter(retryAfterMs);
  }

  /** 503 with a `Retry-After` of `retryAfterMs`, rounded up to whole seconds (at least 1). */
  static unavailable(code: string, message: string, retryAfterMs: number): Refusal {
    return new Refusal(503, code, message).retryAfter(retryAfterMs);
  }

  private retryAfter(ms: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(ms / 1000));
    return this;
  }

  static conflict(code: string, message: string): Refusal {
    return new Refusal(409, code, message);
  }

  body(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) },
    };
  }
}
