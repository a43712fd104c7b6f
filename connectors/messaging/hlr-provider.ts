import { ApplicationFailure } from '@temporalio/activity';
import type { HlrAnswer, HlrProvider } from './carriers.ts';

export interface HlrProviderOptions {
  /** Base URL of the provider's API, e.g. http://127.0.0.1:4010/hlr */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

const stringOrNull = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

/**
 * Client of the HLR lookup provider: `GET {baseUrl}/lookup?msisdn=<E.164 digits>`.
 * Network errors, 5xx, 408 and 429 are thrown for the activity to retry; any other 4xx is a refusal
 * that retrying cannot change (non-retryable).
 */
export function createHlrProvider(options: HlrProviderOptions): HlrProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;

  return {
    async lookup(e164: string): Promise<HlrAnswer> {
      const msisdn = e164.replace(/^\+/, '');
      const response = await doFetch(`${base}/lookup?msisdn=${encodeURIComponent(msisdn)}`, {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        const text = await response.text().catch(() => '');
        const message = `HLR provider answered ${response.status}: ${text.slice(0, 200)}`;
        if (response.status >= 500 || response.status === 408 || response.status === 429)
          throw new Error(message);
        throw ApplicationFailure.nonRetryable(message, 'HlrLookupRefused');
      }
      const body = (await response.json()) as Record<string, unknown>;
      return {
        error: stringOrNull(body.error),
        imsi: stringOrNull(body.imsi),
        mcc: stringOrNull(body.mcc),
        mnc: stringOrNull(body.mnc),
        ported: Array.isArray(body.ported)
          ? body.ported.filter((entry): entry is string => typeof entry === 'string')
          : [],
      };
    },
  };
}
