import type { CarrierSubmission, CarrierSubmitResult, ChatAppProvider } from './carriers.ts';

/**
 * Client of the WhatsApp Cloud API (Meta Graph API), decision 0062: a text message is
 * `POST {baseUrl}/{phone-number-id}/messages` with the business's access token as a bearer token, answered
 * `{messaging_product, contacts: [{input, wa_id}], messages: [{id}]}`; what happens to it afterwards
 * (sent, delivered, read, failed) arrives as signed webhook events (connectors/messaging/whatsapp-webhook.ts).
 */
export interface ChatAppProviderOptions {
  /**
   * The Graph API base with its version: `https://graph.facebook.com/v21.0` in production; the sandbox
   * provider's `http://127.0.0.1:4010/chatapp` (which takes the version segment or none).
   */
  baseUrl: string;
  /** The business phone number's id (the sender of every message), CHATAPP_PHONE_NUMBER_ID. */
  phoneNumberId: string;
  /** A system user's access token with `whatsapp_business_messaging`, CHATAPP_API_KEY. */
  accessToken: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

/** A Graph API error object (`{error: {...}}`), as every failed Graph call answers. */
export interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  fbtrace_id?: string;
  error_data?: { details?: string };
}

/**
 * Graph API and WhatsApp error codes that say "later", not "never": throttling, temporary outages,
 * and the access token or permissions (a configuration the operator fixes; the message waits for it
 * within SMS_SUBMIT_TIMEOUT instead of being refused for good). Every other code on a 4xx answer is
 * a refusal of this message (invalid parameter, recipient, re-engagement window, template).
 */
const TRANSIENT_CODES = new Set([
  1, // API unknown
  2, // API service (temporary)
  4, // API too many calls (application rate limit)
  10, // permission denied (token lacks the permission)
  17, // API user too many calls
  32, // page rate limit
  190, // access token expired or invalid
  200, // permission error
  613, // calls within one hour exceeded
  80007, // WhatsApp Business Account rate limit
  130429, // Cloud API throughput reached
  131000, // something went wrong
  131016, // service unavailable
  131048, // spam rate limit
  131056, // pair rate limit (too many messages to this recipient)
  133004, // server temporarily unavailable
]);

/** Network errors, 5xx, 408 and 429 are transient whatever the body; else the Graph code decides. */
export function isTransientGraphFailure(httpStatus: number, error: GraphError | undefined): boolean {
  if (httpStatus >= 500 || httpStatus === 408 || httpStatus === 429) return true;
  return error?.code !== undefined && TRANSIENT_CODES.has(error.code);
}

async function graphErrorOf(response: Response): Promise<GraphError | undefined> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return body.error && typeof body.error === 'object' ? (body.error as GraphError) : undefined;
  } catch {
    return undefined;
  }
}

/** `131026: Message undeliverable` style: the code (and subcode) first, so that it can be matched on. */
function describeGraphError(httpStatus: number, error: GraphError | undefined): string {
  if (!error) return `http_${httpStatus}`;
  const code = error.code === undefined ? `http_${httpStatus}` : String(error.code);
  const subcode = error.error_subcode === undefined ? '' : `/${error.error_subcode}`;
  const details = error.error_data?.details ? ` (${error.error_data.details})` : '';
  return `${code}${subcode}: ${error.message ?? error.type ?? 'error'}${details}`.slice(0, 500);
}

/** Which provider account the messages go to: the API base and the sending number, without credentials. */
export function chatAppIdentity(baseUrl: string, phoneNumberId: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  try {
    const url = new URL(base);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}/${phoneNumberId}`;
  } catch {
    return `${base}/${phoneNumberId}`;
  }
}

/**
 * The Cloud API has no idempotency key: a submission whose answer is lost (timeout, connection reset)
 * and is retried can reach the recipient twice, as with an SMSC (decision 0062). Our message id rides
 * along as `biz_opaque_callback_data`, so every status event names the platform message it is about.
 * Transient failures are thrown for the activity's retry policy; permanent refusals are `rejected`.
 */
export function createChatAppProvider(options: ChatAppProviderOptions): ChatAppProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;

  return {
    identity: chatAppIdentity(base, options.phoneNumberId),

    async submit(submission: CarrierSubmission): Promise<CarrierSubmitResult> {
      const response = await doFetch(`${base}/${encodeURIComponent(options.phoneNumberId)}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.accessToken}`,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          // The WhatsApp ID form: the number's digits, country code first.
          to: submission.to.replace(/\D/g, ''),
          type: 'text',
          text: { preview_url: false, body: submission.message },
          biz_opaque_callback_data: submission.messageId,
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.ok) {
        const body = (await response.json().catch(() => undefined)) as
          | { messages?: { id?: unknown }[] }
          | undefined;
        const id = body?.messages?.[0]?.id;
        if (typeof id !== 'string' || id.length === 0)
          throw new Error('WhatsApp Cloud API answered without a message id');
        return { outcome: 'submitted', carrierMessageId: id };
      }
      const error = await graphErrorOf(response);
      const reason = describeGraphError(response.status, error);
      if (isTransientGraphFailure(response.status, error))
        throw new Error(`WhatsApp Cloud API failed (${response.status}): ${reason}`);
      return { outcome: 'rejected', error: reason };
    },
  };
}
