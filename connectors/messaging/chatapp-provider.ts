import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import type { CarrierSubmission, CarrierSubmitResult, ChatAppProvider } from './carriers.ts';

export interface ChatAppProviderOptions {
  /** Base URL of the provider's API, e.g. http://127.0.0.1:4010/chatapp */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

interface ProviderMessageStatus {
  id: string;
  status: 'queued' | 'delivered' | 'failed';
  error?: string;
  doneAt?: string;
}

/** 408 and 429 say "later", not "never": they are thrown so the activity retries them. */
const isPermanentRefusal = (status: number) =>
  status >= 400 && status < 500 && status !== 408 && status !== 429;

async function describeFailure(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const word = typeof body.error === 'string' ? body.error : `http_${response.status}`;
    return typeof body.message === 'string' ? `${word}: ${body.message}` : word;
  } catch {
    return `http_${response.status}`;
  }
}

/**
 * Client of the chat-app provider's HTTP API. Submissions carry our message id as the idempotency
 * key, so a retried activity never sends a message twice. Transient failures (network, 5xx, 408, 429)
 * are thrown for the activity's retry policy; other 4xx answers are permanent refusals.
 */
export function createChatAppProvider(options: ChatAppProviderOptions): ChatAppProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const headers = { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' };

  return {
    identity: providerIdentity(base),

    async submit(submission: CarrierSubmission): Promise<CarrierSubmitResult> {
      const response = await doFetch(`${base}/messages`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          to: submission.to,
          from: submission.from,
          text: submission.message,
          idempotencyKey: submission.messageId,
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.ok) {
        const body = (await response.json()) as Partial<ProviderMessageStatus>;
        if (typeof body.id !== 'string') throw new Error('chat-app provider answered without a message id');
        return { outcome: 'submitted', carrierMessageId: body.id };
      }
      const reason = await describeFailure(response);
      if (isPermanentRefusal(response.status)) return { outcome: 'rejected', error: reason };
      throw new Error(`chat-app provider failed (${response.status}): ${reason}`);
    },

    async receipt(carrierMessageId: string): Promise<DeliveryReceipt | undefined> {
      const response = await doFetch(`${base}/messages/${encodeURIComponent(carrierMessageId)}`, {
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        throw new Error(
          `chat-app provider status query failed (${response.status}): ${await describeFailure(response)}`,
        );
      }
      const body = (await response.json()) as ProviderMessageStatus;
      if (body.status === 'delivered') {
        return {
          carrierMessageId,
          status: 'delivered',
          carrierStatus: 'delivered',
          ...(body.doneAt ? { doneAt: body.doneAt } : {}),
        };
      }
      if (body.status === 'failed') {
        // The provider reached its verdict (e.g. the recipient is not on the app): not deliverable.
        return {
          carrierMessageId,
          status: 'undeliverable',
          carrierStatus: 'failed',
          errorCode: body.error ?? 'failed',
          ...(body.doneAt ? { doneAt: body.doneAt } : {}),
        };
      }
      return undefined;
    },
  };
}

/** The base URL without any credentials in it. */
function providerIdentity(base: string): string {
  try {
    const url = new URL(base);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return base;
  }
}
