/**
 * A small HTTP client for the open-banking gateway in tests: `call(method, path, { headers, body })`
 * against `<openbanking base>`, answering status and parsed JSON body; plus helpers that enrol a
 * customer the way an agent would.
 */

export interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; message: string }[] };
}

export interface ObResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  headers?: Record<string, string | undefined>;
  body?: unknown;
  /** A raw body (string) instead of JSON. */
  rawBody?: string;
}

export type ObCall = <T = Record<string, unknown> & Partial<ErrorBody>>(
  method: string,
  path: string,
  options?: CallOptions,
) => Promise<ObResponse<T>>;

export function openBankingClient(baseUrl: string): ObCall {
  return async <T>(method: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined) headers[name] = value;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('json') ?? false;
    return {
      status: response.status,
      headers: response.headers,
      // JSON answers are parsed; anything else (the bank callback's HTML page) is kept as text.
      body: (json && text ? JSON.parse(text) : text || null) as T,
    };
  };
}

export interface EnrolledUser {
  userId: string;
  userHash: string;
  agentId: string;
  email: string;
}

let sequence = 0;

/** Enrols a customer under the agent (POST /api/8/signup) and returns its ids and hash. */
export async function enrolUser(
  call: ObCall,
  agentHash: string,
  fields: Record<string, unknown> = {},
  version = 8,
): Promise<EnrolledUser> {
  sequence += 1;
  const email = (fields.email as string | undefined) ?? `customer${sequence}.${Date.now()}@example.com`;
  const { status, body } = await call<EnrolledUser & Partial<ErrorBody>>('POST', `/api/${version}/signup`, {
    headers: { 'x-agent-hash': agentHash },
    body: { name: 'Maria', family: 'Ivanova', email, ...fields },
  });
  if (status !== 201) throw new Error(`signup failed: ${status} ${JSON.stringify(body)}`);
  return { ...body, email };
}
