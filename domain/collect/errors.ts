/**
 * Errors of the ENCODED/CHECKSUM endpoints, answered in the ePay text convention:
 *   ERR=<CODE>\nERRMSG=<text>[\nFIELD=<name>]
 * with the HTTP status below. Codes are stable; docs/collect.md lists them. Pure (no I/O).
 */
export const collectErrorCodes = {
  /** ENCODED is not base64 of `KEY=VALUE` lines in the declared encoding. */
  BAD_ENCODED: { status: 400, meaning: 'ENCODED cannot be decoded into KEY=VALUE lines' },
  /** A required parameter or packet field is absent or empty (FIELD names it). */
  MISSING_FIELD: { status: 400, meaning: 'a required field is missing' },
  /** A parameter or packet field has a value of the wrong form (FIELD names it). */
  BAD_FIELD: { status: 400, meaning: 'a field is malformed' },
  /** No merchant has the MIN of the packet. */
  UNKNOWN_MERCHANT: { status: 401, meaning: 'MIN is not a merchant of this gateway' },
  /** CHECKSUM is not the HMAC-SHA1 of ENCODED keyed with the merchant secret. */
  BAD_CHECKSUM: { status: 401, meaning: 'CHECKSUM does not match ENCODED' },
  /** No obligation of this merchant (or, for the demo endpoints, at all) has the IDN. */
  NOT_FOUND: { status: 404, meaning: 'no such obligation' },
  /** The INVOICE is registered already with a different packet (a resubmission must be identical). */
  DUPLICATE_INVOICE: { status: 409, meaning: 'INVOICE already registered with different data' },
  /** The obligation's expiry has passed: it can no longer be paid, collected, finalized or changed. */
  EXPIRED: { status: 409, meaning: 'the obligation has expired' },
  /** The obligation is paid already. */
  ALREADY_PAID: { status: 409, meaning: 'the obligation is paid already' },
  /** The obligation is in another final state (reversed, denied). */
  ALREADY_FINAL: { status: 409, meaning: 'the obligation is closed' },
  /** The operation does not apply to this kind of obligation (e.g. finalize of an office bill). */
  WRONG_KIND: { status: 409, meaning: 'the operation does not apply to this obligation' },
  /** A finalize asked for more than the pre-authorised amount. */
  AMOUNT_EXCEEDS_HOLD: { status: 422, meaning: 'the amount exceeds the held amount' },
  /** FINALIZE of a pre-authorisation the customer has not authorised with a card yet (PENDING). */
  NOT_HELD: { status: 409, meaning: 'the pre-authorisation holds nothing yet' },
  /** The card acquirer is being asked (capture, void) for this obligation; repeat the request shortly. */
  IN_PROGRESS: { status: 409, meaning: 'another operation on this obligation is in progress' },
  /** The card acquirer refused the capture or void (e.g. the hold was released at the acquirer). */
  ACQUIRER_REFUSED: { status: 502, meaning: 'the card acquirer refused the operation' },
  /** The card acquirer did not answer the capture or void; nothing changed, send the request again. */
  ACQUIRER_UNAVAILABLE: { status: 503, meaning: 'the card acquirer did not answer' },
  /** A saved-card charge (card/charge.cgi) whose acquirer call could not be made: send the same packet again. */
  UNAVAILABLE: { status: 503, meaning: 'the charge could not be made now; send the same packet again' },
  /**
   * PLATFORM_MODE=production: one-touch payments run on the sandbox card only (they are not connected
   * to the card acquirer), so they refuse to run.
   */
  ACQUIRER_NOT_CONFIGURED: { status: 503, meaning: 'no card acquirer is configured' },
  /** Anything unexpected (logged, never detailed). */
  INTERNAL: { status: 500, meaning: 'internal error' },
} as const;

export type CollectErrorCode = keyof typeof collectErrorCodes;

export class CollectProtocolError extends Error {
  constructor(
    readonly code: CollectErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CollectProtocolError';
  }

  get status(): number {
    return collectErrorCodes[this.code].status;
  }

  /** The response body: `ERR=`, `ERRMSG=` and, when a field is at fault, `FIELD=`. */
  toText(): string {
    const lines = [`ERR=${this.code}`, `ERRMSG=${this.message.replace(/[\r\n]+/g, ' ')}`];
    if (this.field) lines.push(`FIELD=${this.field}`);
    return lines.join('\n');
  }
}

export const missingField = (field: string) =>
  new CollectProtocolError('MISSING_FIELD', `${field} is required`, field);

export const badField = (field: string, message: string) =>
  new CollectProtocolError('BAD_FIELD', `${field}: ${message}`, field);
