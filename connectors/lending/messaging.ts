/**
 * The lending platform as a client of the messaging gateway's public HTTP API (docs/messaging.md),
 * with its own access token: `POST {baseUrl}/sms?at={token}` with `{ to, from, message, containsCode }`,
 * answered 202 `{ id, status, ... }`. The `Idempotency-Key` makes a repeated request send once.
 * Never logs the message (it carries a signing code).
 */

export interface SmsRequest {
  to: string;
  from: string;
  message: string;
  /** The text carries a one-time code: the gateway keeps only a masked text (docs/messaging.md). */
  containsCode?: boolean;
}

export interface MessagingClientOptions {
  /** The gateway's base, e.g. `http://127.0.0.1:3000/messaging`. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/** The gateway did not accept the message: its error code, the fields it named (never the text sent). */
export class SmsNotSent extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | undefined,
    readonly code: string | undefined,
    /** The request fields the gateway's answer named (`to`: it refused the recipient's number). */
    readonly fields: string[] = [],
  ) {
    super(message);
    this.name = 'SmsNotSent';
  }
}

/** Sends one SMS; resolves with the gateway's message id, or throws SmsNotSent. */
export async function sendSms(
  options: MessagingClientOptions,
  sms: SmsRequest,
  idempotencyKey: string,
): Promise<{ id: string }> {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/sms`);
  url.searchParams.set('at', options.token);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(sms),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new SmsNotSent(
      `the messaging gateway could not be reached: ${(error as Error).name}`,
      undefined,
      undefined,
    );
  }
  const answer = (await response.json().catch(() => undefined)) as
    | { id?: string; error?: { code?: string; message?: string; fields?: { field?: unknown }[] } }
    | undefined;
  if (response.status !== 202 || typeof answer?.id !== 'string') {
    throw new SmsNotSent(
      `the messaging gateway answered ${response.status}${answer?.error?.code ? ` ${answer.error.code}` : ''}`,
      response.status,
      answer?.error?.code,
      (answer?.error?.fields ?? []).flatMap(({ field }) => (typeof field === 'string' ? [field] : [])),
    );
  }
  return { id: answer.id };
}
