import { ApplicationFailure } from '@temporalio/common';
import { type TppMessage, type Xs2aErrorDetails, Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';

/**
 * The bank connector's failures: every one an `ApplicationFailure` whose `type` is one of `Xs2aErrorType`
 * with `Xs2aErrorDetails` as details[0] (see xs2a-client.ts for which ones are retried).
 */

const NON_RETRYABLE_BY_CODE: Record<string, Xs2aErrorType> = {
  CONSENT_INVALID: Xs2aErrorType.ConsentInvalid,
  CONSENT_EXPIRED: Xs2aErrorType.ConsentExpired,
  CONSENT_UNKNOWN: Xs2aErrorType.ConsentUnknown,
  ACCESS_EXCEEDED: Xs2aErrorType.AccessExceeded,
  FORMAT_ERROR: Xs2aErrorType.FormatError,
  RESOURCE_UNKNOWN: Xs2aErrorType.ResourceUnknown,
  PSU_CREDENTIALS_INVALID: Xs2aErrorType.ScaCredentialsInvalid,
  RESOURCE_EXPIRED: Xs2aErrorType.ScaExpired,
  STATUS_INVALID: Xs2aErrorType.StatusInvalid,
  // OAuth2 SCA (decision 0067): the reads' bearer token is missing, wrong or expired.
  TOKEN_INVALID: Xs2aErrorType.ConsentInvalid,
  TOKEN_EXPIRED: Xs2aErrorType.ConsentInvalid,
  // 405: the payment is past cancelling (executed, rejected, already cancelled).
  CANCELLATION_INVALID: Xs2aErrorType.StatusInvalid,
  PAYMENT_FAILED: Xs2aErrorType.PaymentFailed,
  PRODUCT_UNKNOWN: Xs2aErrorType.FormatError,
  SIGNATURE_MISSING: Xs2aErrorType.SignatureInvalid,
  SIGNATURE_INVALID: Xs2aErrorType.SignatureInvalid,
  CERTIFICATE_INVALID: Xs2aErrorType.SignatureInvalid,
};

export function failure(type: Xs2aErrorType, message: string, details: Xs2aErrorDetails): ApplicationFailure {
  const retryable = type === Xs2aErrorType.BankUnavailable;
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: !retryable,
    details: [details],
    // A bank in a maintenance window says when it is back; do not retry before then.
    ...(retryable && details.retryAfterSeconds ? { nextRetryDelay: details.retryAfterSeconds * 1000 } : {}),
  });
}

/** The connector failure type of an error (also through an ActivityFailure's cause), if it is one. */
export function xs2aErrorTypeOf(error: unknown): Xs2aErrorType | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (
      current instanceof ApplicationFailure &&
      Object.values(Xs2aErrorType).includes(current.type as Xs2aErrorType)
    )
      return current.type as Xs2aErrorType;
    current = current.cause;
  }
  return undefined;
}

export function retryAfterSeconds(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Maps a non-2xx answer to the connector's failure types. */
export async function errorOf(response: Response, what: string): Promise<ApplicationFailure> {
  const text = await response.text().catch(() => '');
  let message: TppMessage | undefined;
  try {
    // The schema's tppMessages may mix WARNING and ERROR entries: the error is what the answer means.
    const messages = (JSON.parse(text) as { tppMessages?: TppMessage[] }).tppMessages;
    message = messages?.find((each) => each.category === 'ERROR') ?? messages?.[0];
  } catch {
    // not a Berlin Group body
  }
  const details: Xs2aErrorDetails = {
    status: response.status,
    code: message?.code ?? null,
    text: message?.text ?? (text.slice(0, 200) || null),
    retryAfterSeconds: retryAfterSeconds(response),
  };
  const summary = `${what}: bank answered ${response.status}${details.code ? ` ${details.code}` : ''}${details.text ? ` (${details.text})` : ''}`;
  if (response.status >= 500 || response.status === 408)
    return failure(Xs2aErrorType.BankUnavailable, summary, details);
  const byCode = details.code ? NON_RETRYABLE_BY_CODE[details.code] : undefined;
  if (byCode) return failure(byCode, summary, details);
  if (response.status === 429) return failure(Xs2aErrorType.AccessExceeded, summary, details);
  if (response.status === 401) return failure(Xs2aErrorType.ConsentInvalid, summary, details);
  if (response.status === 404) return failure(Xs2aErrorType.ResourceUnknown, summary, details);
  return failure(Xs2aErrorType.FormatError, summary, details);
}

export const protocolError = (what: string, problem: string) =>
  failure(Xs2aErrorType.ProtocolError, `${what}: ${problem}`, {
    status: null,
    code: null,
    text: problem,
    retryAfterSeconds: null,
  });

/**
 * The consent needs a new SCA: its access token at the bank expired and there is no refresh token (an
 * Xs2aConsentInvalid, as the bank's own refusal would be).
 */
export function accessTokenExpired(what: string): ApplicationFailure {
  return failure(
    Xs2aErrorType.ConsentInvalid,
    `${what}: the bank's access token expired; a new SCA is needed`,
    {
      status: null,
      code: 'TOKEN_EXPIRED',
      text: 'the access token expired and the bank gave no refresh token',
      retryAfterSeconds: null,
    },
  );
}
