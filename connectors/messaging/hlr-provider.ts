import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { all as allOperators } from 'mcc-mnc-list';
import type { HlrAnswer, HlrProvider } from './carriers.ts';

/**
 * Client of the HLR Lookups API v2 of hlr-lookups.com (decision 0062): a synchronous
 * `POST {baseUrl}/hlr-lookup` with `{"msisdn": "+<E.164>"}`, authenticated by Digest Auth headers
 * `X-Digest-Key` (the API key), `X-Digest-Timestamp` (Unix seconds) and `X-Digest-Signature`
 * (hex HMAC-SHA256, keyed with the API secret, of endpoint path + timestamp + method + body).
 */
export interface HlrProviderOptions {
  /** `https://www.hlr-lookups.com/api/v2` in production; the sandbox's `http://127.0.0.1:4010/hlr`. */
  baseUrl: string;
  /** HLR_API_KEY */
  apiKey: string;
  /** HLR_API_SECRET */
  apiSecret: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
  /** Unix seconds now (tests). */
  now?: () => number;
}

/** The Digest Auth signature: HMAC-SHA256(secret, endpoint + timestamp + METHOD + body), hex. */
export function hlrDigestSignature(
  secret: string,
  request: { endpoint: string; timestamp: number; method: string; body: string },
): string {
  return createHmac('sha256', secret)
    .update(`${request.endpoint}${request.timestamp}${request.method.toUpperCase()}${request.body}`)
    .digest('hex');
}

/** The fields of an HLR API answer the platform reads (the rest: names, roaming, cost, route...). */
export interface HlrLookupsAnswer {
  id?: string;
  msisdn?: string;
  connectivity_status?: 'CONNECTED' | 'ABSENT' | 'INVALID_MSISDN' | 'UNDETERMINED' | string;
  mccmnc?: string | null;
  mcc?: string | null;
  mnc?: string | null;
  imsi?: string | null;
  original_network_name?: string | null;
  original_country_code?: string | null;
  is_ported?: boolean | null;
  processing_status?: 'COMPLETED' | 'REJECTED' | 'FAILED' | string;
  error_code?: string | number | null;
}

/** The platform's word for a connectivity status; null when the number is connected. */
const ERROR_OF_CONNECTIVITY: Record<string, string | null> = {
  CONNECTED: null,
  ABSENT: 'absent_subscriber',
  INVALID_MSISDN: 'unknown_subscriber',
  UNDETERMINED: 'undetermined',
};

const digitsOrNull = (value: unknown, length: { min: number; max: number }): string | null =>
  typeof value === 'string' && new RegExp(`^\\d{${length.min},${length.max}}$`).test(value) ? value : null;

/**
 * The network a ported number was first assigned to, as MCC+MNC: the answer names it only
 * (`original_network_name`), so it is looked up by brand or operator name among the networks of
 * `original_country_code`; a name the list does not know gives none.
 */
export function originalNetworkOf(name: string | null | undefined, country: string | null | undefined) {
  if (!name || !country) return undefined;
  const wanted = name.trim().toLowerCase();
  const found = allOperators().find(
    (operator) =>
      (operator.countryCode ?? '').split('/').includes(country) &&
      (operator.brand?.toLowerCase() === wanted || operator.operator?.toLowerCase() === wanted),
  );
  return found ? found.mcc + found.mnc : undefined;
}

/** Maps an HLR API answer to the platform's raw answer (activities/messaging/hlr.ts makes the result). */
export function hlrAnswerOf(body: HlrLookupsAnswer): HlrAnswer {
  const status = body.connectivity_status ?? 'UNDETERMINED';
  const error = status in ERROR_OF_CONNECTIVITY ? ERROR_OF_CONNECTIVITY[status]! : 'undetermined';
  const mcc = digitsOrNull(body.mcc, { min: 3, max: 3 });
  const mnc = digitsOrNull(body.mnc, { min: 2, max: 3 });
  const origin = body.is_ported
    ? originalNetworkOf(body.original_network_name, body.original_country_code)
    : undefined;
  return {
    error,
    // Accounts without IMSI access get it masked (`***`): no IMSI then.
    imsi: digitsOrNull(body.imsi, { min: 6, max: 15 }),
    mcc: mcc && mnc ? mcc : null,
    mnc: mcc && mnc ? mnc : null,
    ported: origin && origin !== `${mcc}${mnc}` ? [origin] : [],
  };
}

/**
 * Network errors, 5xx, 408, 429 and a lookup the provider could not process (`processing_status`
 * FAILED) are thrown for the activity to retry; any other 4xx and a REJECTED lookup are refusals that
 * retrying cannot change (non-retryable).
 */
export function createHlrProvider(options: HlrProviderOptions): HlrProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));

  return {
    async lookup(e164: string): Promise<HlrAnswer> {
      const endpoint = '/hlr-lookup';
      const body = JSON.stringify({ msisdn: `+${e164.replace(/\D/g, '')}` });
      const timestamp = now();
      const response = await doFetch(`${base}${endpoint}`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-digest-key': options.apiKey,
          'x-digest-timestamp': String(timestamp),
          'x-digest-signature': hlrDigestSignature(options.apiSecret, {
            endpoint,
            timestamp,
            method: 'POST',
            body,
          }),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        const text = await response.text().catch(() => '');
        const message = `HLR provider answered ${response.status}: ${text.slice(0, 200)}`;
        if (response.status >= 500 || response.status === 408 || response.status === 429)
          throw new Error(message);
        throw ApplicationFailure.nonRetryable(message, 'HlrLookupRefused');
      }
      const answer = (await response.json()) as HlrLookupsAnswer;
      if (answer.processing_status === 'FAILED')
        throw new Error(`HLR lookup failed at the provider (error_code ${answer.error_code ?? 'none'})`);
      if (answer.processing_status === 'REJECTED') {
        throw ApplicationFailure.nonRetryable(
          `HLR lookup rejected by the provider (error_code ${answer.error_code ?? 'none'})`,
          'HlrLookupRefused',
        );
      }
      return hlrAnswerOf(answer);
    },
  };
}
