/**
 * Errors of the one-touch operations, answered in ePay.bg's one-touch shape so existing one-touch
 * clients parse them unchanged:
 *   { "status": "ERR", "err": "INVALID_TOKEN", "errm": "message", "field": "TOKEN" }
 * with an HTTP status that says the same (4xx for the caller's mistakes). `err` codes are stable;
 * docs/collect.md lists them. Pure (no I/O).
 */
export const oneTouchErrorCodes = [
  'MISSING_PARAMETER',
  'INVALID_PARAMETER',
  'DUPLICATE_PARAMETER',
  'INVALID_APP',
  'INVALID_CODE',
  'INVALID_TOKEN',
  'INVALID_CHECKSUM',
  'KEY_ALREADY_USED',
  'PAYMENT_ID_CONFLICT',
  'PAYMENT_ID_EXPIRED',
  'PAYMENT_DECLINED',
  'ACQUIRER_NOT_CONFIGURED',
] as const;
export type OneTouchErrorCode = (typeof oneTouchErrorCodes)[number];

/** The statuses one-touch errors are answered with. */
export type OneTouchErrorStatus = 400 | 401 | 402 | 409 | 503;

export class OneTouchError extends Error {
  constructor(
    readonly status: OneTouchErrorStatus,
    readonly err: OneTouchErrorCode,
    message: string,
    readonly field?: string,
    /** Extra members of the answer (a declined payment's record). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'OneTouchError';
  }

  static invalid(field: string, message: string): OneTouchError {
    return new OneTouchError(400, 'INVALID_PARAMETER', `${field}: ${message}`, field);
  }

  body() {
    return {
      status: 'ERR' as const,
      err: this.err,
      errm: this.message,
      ...(this.field ? { field: this.field } : {}),
      ...this.extra,
    };
  }
}
