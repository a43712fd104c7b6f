/**
 * The lending platform as a client of the open-banking gateway's public HTTP API (docs/openbanking.md),
 * exactly as a third-party agent is: its own `x-agent-hash`, its customers enrolled as the agent's users
 * (`x-user-hash`), one-shot `account-list` consents for bank verification (decision 0042). Nothing here
 * reads the gateway's tables or imports its modules.
 */

export interface GatewayError {
  status: number;
  code: string;
  message: string;
}

/** The gateway refused a request (4xx) or could not be reached / failed (5xx, network, timeout). */
export class OpenBankingGatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'OpenBankingGatewayError';
  }
}

export interface ConsentStarted {
  consentId: string;
  state: string;
  scaRedirectUrl: string | null;
  scaDeadline: string;
}

export interface ConsentToken {
  consentId: string;
  status: string;
  statusReason: string | null;
}

export interface ListedAccount {
  iban: string;
  ownerName: string | null;
  currency: string;
  consentId: string;
}

export interface OpenBankingClientOptions {
  /** The gateway's base, e.g. `https://api.example/openbanking`. */
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export function openBankingClient(options: OpenBankingClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...headers,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new OpenBankingGatewayError(503, 'gateway_unreachable', (error as Error).message);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new OpenBankingGatewayError(
      response.status,
      error?.code ?? 'gateway_error',
      error?.message ?? `${method} ${path} answered ${response.status}`,
    );
  }

  return {
    /** `POST /api/8/signup/agent` (open in sandbox mode). */
    signupAgent: (name: string) =>
      call<{ agentId: string; agentHash: string }>('POST', '/api/8/signup/agent', {}, { name }),
    /** `POST /api/8/signup`: a customer as the agent's user. */
    enrolUser: (
      agentHash: string,
      user: { name: string; family: string; email: string; identityHash: string },
    ) =>
      call<{ userId: string; userHash: string }>(
        'POST',
        '/api/8/signup',
        { 'x-agent-hash': agentHash },
        user,
      ),
    /** `POST /api/8/consent` as the user. */
    startConsent: (
      userHash: string,
      body: { bankHash: string; kind: 'account-list'; app: string },
      psu: { userAgent?: string | undefined; ipAddress?: string | undefined },
    ) =>
      call<ConsentStarted>(
        'POST',
        '/api/8/consent',
        {
          'x-user-hash': userHash,
          ...(psu.userAgent ? { 'user-agent': psu.userAgent } : {}),
          ...(psu.ipAddress ? { 'x-psu-ip-address': psu.ipAddress } : {}),
        },
        body,
      ),
    /** `GET /api/8/tokens`: the user's consents. */
    consents: async (userHash: string) =>
      (await call<{ tokens: ConsentToken[] }>('GET', '/api/8/tokens', { 'x-user-hash': userHash })).tokens,
    /** `GET /api/8/account-list`: accounts the user's account-list consents listed, with owner names. */
    listedAccounts: async (userHash: string) =>
      (await call<{ accounts: ListedAccount[] }>('GET', '/api/8/account-list', { 'x-user-hash': userHash }))
        .accounts,
    /** `GET /api/8/banks`: the banks a customer can verify at. */
    banks: async (userHash: string) =>
      (
        await call<{ banks: { bankHash: string; name: string; country: string; bankFlowType: string }[] }>(
          'GET',
          '/api/8/banks',
          { 'x-user-hash': userHash },
        )
      ).banks,
  };
}

export type OpenBankingClient = ReturnType<typeof openBankingClient>;
