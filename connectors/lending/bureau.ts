import { STATUS_CODES } from 'node:http';

/**
 * The credit bureau: who decides a loan application automatically. One interface, one HTTP
 * implementation used in every mode: in sandbox mode it talks to the sandbox bureau
 * (sandbox/lending/bureau.ts), in production to the bureau named by LENDING_BUREAU_URL (a sandbox bureau
 * named explicitly too). Protocol (docs/lending.md, "Credit bureau"):
 *
 *   POST /v1/credit-checks   { reference, applicant, amount, term, productName } → CreditCheck
 *
 * Every request carries `X-Api-Key`. The same `reference` answers the first answer again, so a retried
 * activity asks once.
 */

export type BureauOutcome = 'approve' | 'decline' | 'refer';

export interface CreditCheckRequest {
  /** The platform's reference of this check (one per decision of a loan; stable over retries). */
  reference: string;
  applicant: {
    firstName: string;
    lastName: string;
    ssn?: string | undefined;
    birthDate?: string | undefined;
  };
  /** Decimal string. */
  amount: string;
  term: number;
  productName: string;
}

export interface CreditCheck {
  /** The bureau's own id of the check. */
  id: string;
  reference: string;
  decision: BureauOutcome;
  /** 300-850. */
  score: number;
  reasons: string[];
}

/** The bureau refused the request (4xx): asking again cannot help. */
export class BureauRefusal extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'BureauRefusal';
  }
}

/**
 * The bureau could not be reached, failed or did not answer in time: the same request may be retried. Its
 * message says which, in words a loan officer reads in the loan's decision ("the credit bureau did not
 * answer within 10 s", "… answered 503 Service Unavailable", "… could not be reached: connection refused").
 */
export class BureauUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BureauUnavailable';
  }
}

export interface CreditBureau {
  check(request: CreditCheckRequest): Promise<CreditCheck>;
}

export interface HttpBureauOptions {
  url: string;
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const OUTCOMES: readonly string[] = ['approve', 'decline', 'refer'];

/** The bureau over HTTP (every mode). */
export function createHttpBureau(options: HttpBureauOptions): CreditBureau {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    async check(request) {
      let response: Response;
      let text: string;
      try {
        response = await doFetch(`${base}/v1/credit-checks`, {
          method: 'POST',
          headers: {
            'x-api-key': options.apiKey,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify(request),
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        throw new BureauUnavailable(unreachable(error, timeoutMs));
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.ok) {
        const check = parsed as Partial<CreditCheck> | undefined;
        if (check && typeof check.id === 'string' && OUTCOMES.includes(check.decision ?? '')) {
          return {
            id: check.id,
            reference: String(check.reference ?? request.reference),
            decision: check.decision as BureauOutcome,
            score: Number(check.score ?? 0),
            reasons: Array.isArray(check.reasons) ? check.reasons.map(String) : [],
          };
        }
        throw new BureauUnavailable(`the credit bureau answered without a decision: ${text.slice(0, 200)}`);
      }
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        const error = (parsed as { error?: { message?: string } } | undefined)?.error;
        throw new BureauRefusal(
          error?.message ?? `credit bureau answered ${response.status}`,
          response.status,
        );
      }
      const said = (parsed as { error?: { message?: string } } | undefined)?.error?.message;
      throw new BureauUnavailable(
        `the credit bureau answered ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd() +
          (said ? `: ${said.slice(0, 200)}` : ''),
      );
    },
  };
}

/** Socket errors a person reads (fetch's own message is only "fetch failed"). */
const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** What went wrong before the bureau answered: its time ran out, or the connection failed (and how). */
function unreachable(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `the credit bureau did not answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const how = code
    ? (SOCKET_ERRORS[code] ?? code)
    : typeof cause?.message === 'string'
      ? cause.message
      : (error as Error).message;
  return `the credit bureau could not be reached: ${how}`;
}

/**
 * The bureau this process is configured with: LENDING_BUREAU_URL, else (sandbox mode: production refuses
 * to start without it, platform/config.ts) the sandbox bureau on this machine.
 */
export function bureauFor(config: {
  LENDING_BUREAU_URL?: string | undefined;
  LENDING_BUREAU_API_KEY: string;
  LENDING_BUREAU_REQUEST_TIMEOUT: number;
  SANDBOX_BUREAU_PORT: number;
}): CreditBureau {
  return createHttpBureau({
    url: config.LENDING_BUREAU_URL ?? `http://127.0.0.1:${config.SANDBOX_BUREAU_PORT}`,
    apiKey: config.LENDING_BUREAU_API_KEY,
    timeoutMs: config.LENDING_BUREAU_REQUEST_TIMEOUT,
  });
}
