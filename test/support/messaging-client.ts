import { eq } from 'drizzle-orm';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { messageWorkflowId } from '../../domain/messaging/processes.ts';
import { eventually, type TestPlatform } from './platform.ts';

/** The JSON of an answer: any object, with the platform's error model when it is an error. */
export type AnswerJson = Record<string, unknown> & {
  error?: { code: string; message: string; fields?: { field: string; message: string }[] };
};

/** Status and JSON only, so that tests can compare whole answers with toEqual. */
export interface Answer {
  status: number;
  /** Parsed when the answer is JSON, otherwise undefined. */
  json: AnswerJson;
}

export interface RequestOptions {
  /** An object is sent as JSON; a string is sent as it is (e.g. malformed JSON). */
  body?: unknown;
  /** The `at` access token; defaults to the platform's token, `null` sends none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** Calls the messaging gateway of a test platform over HTTP, as an integrator would. */
export function messagingClient(platform: () => TestPlatform) {
  return async (method: string, path: string, options: RequestOptions = {}): Promise<Answer> => {
    const url = new URL(`${platform().baseUrl}${path}`);
    const token = options.token === undefined ? platform().token : options.token;
    if (token !== null) url.searchParams.set('at', token);
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...options.headers },
      ...(options.body !== undefined
        ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const json = (contentType?.startsWith('application/json') ? JSON.parse(text) : undefined) as AnswerJson;
    return { status: response.status, json };
  };
}

/**
 * The workflow that follows an accepted message, once the hand-over has started it (decision 0066): the
 * batch that claimed it (decision 0074), or its own `sms-<id>` (scheduled and chat-app messages).
 */
export async function handedOverMessage(platform: TestPlatform, messageId: string) {
  return eventually(
    async () => {
      const [row] = await platform.db
        .select({
          processId: messagingMessages.processId,
          channel: messagingMessages.channel,
          status: messagingMessages.status,
        })
        .from(messagingMessages)
        .where(eq(messagingMessages.id, messageId));
      const ownWorkflow =
        row &&
        (row.channel !== 'sms' || row.status === 'scheduled' || platform.config.MESSAGING_BATCH_SIZE === 0);
      const workflowId = row?.processId ?? (ownWorkflow ? messageWorkflowId(messageId) : undefined);
      if (!workflowId) return undefined;
      const handle = platform.client.workflow.getHandle(workflowId);
      return (await handle.describe().catch(() => undefined)) ? handle : undefined;
    },
    15_000,
    'the message handed over to its workflow',
  );
}

/** A message's view once delivered, read over `api` (GET /sms/{id}). */
export function deliveredMessage(api: ReturnType<typeof messagingClient>, id: string) {
  return eventually(
    async () => {
      const { json } = await api('GET', `/sms/${id}`);
      return json.status === 'delivered' ? json : undefined;
    },
    30_000,
    `message ${id} delivered`,
  );
}
