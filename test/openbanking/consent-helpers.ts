import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import {
  type EnrolledUser,
  enrolUser,
  type ObCall,
  openBankingClient,
} from '../support/openbanking-client.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';

/**
 * Helpers of the consent and account-information tests: an agent with a customer, and consents
 * completed at a sandbox bank's SCA page over plain HTTP (the browser test drives a real Chromium).
 */

export const bankHash = (code: 'bank-a' | 'bank-b' | 'bank-c') => bankHashOf(code);

export interface ConsentStarted {
  consentId: string;
  state: string;
  scaRedirectUrl: string;
  callbackUrl: string;
}

export interface Customer {
  call: ObCall;
  agentHash: string;
  agentId: string;
  user: EnrolledUser;
  /** x-user-hash of the customer. */
  headers: { 'x-user-hash': string };
}

export async function newCustomer(platform: TestPlatform, name = 'Test agent'): Promise<Customer> {
  const call = openBankingClient(platform.openBanking.url);
  const agent = await platform.openBanking.createAgent(name);
  const user = await enrolUser(call, agent.agentHash);
  return {
    call,
    agentHash: agent.agentHash,
    agentId: agent.agentId,
    user,
    headers: { 'x-user-hash': user.userHash },
  };
}

export async function startConsent(
  customer: Customer,
  body: Record<string, unknown>,
  version = 8,
): Promise<ConsentStarted> {
  const { status, body: answer } = await customer.call<ConsentStarted & { error?: unknown }>(
    'POST',
    `/api/${version}/consent`,
    { headers: customer.headers, body },
  );
  if (status !== 201) throw new Error(`POST consent answered ${status} ${JSON.stringify(answer)}`);
  return answer;
}

export interface Token {
  consentId: string;
  status: string;
  bankStatus: string | null;
  accessExceededAt: string | null;
  accounts: number;
  kind: string;
}

/** The consent as GET /api/8/tokens shows it, once it satisfies `done` (default: it left AWAITING_SCA). */
export function consentOnceSettled(
  customer: Customer,
  consentId: string,
  done: (token: Token) => boolean = (token) => token.status !== 'AWAITING_SCA',
  timeoutMs = 20_000,
): Promise<Token> {
  return eventually(
    async () => {
      const { body } = await customer.call<{ tokens: Token[] }>('GET', '/api/8/tokens', {
        headers: customer.headers,
      });
      const token = body.tokens.find((candidate) => candidate.consentId === consentId);
      return token && done(token) ? token : undefined;
    },
    timeoutMs,
    `consent ${consentId} to settle`,
  );
}

/** Starts a consent and approves it at the bank as `psuId`, POSTing the bank's return form to the gateway. */
export async function addAccounts(
  customer: Customer,
  psuId: string,
  body: Record<string, unknown>,
): Promise<{ started: ConsentStarted; token: Token; callback: Response }> {
  const started = await startConsent(customer, body);
  const { submitted } = await driveSca(started.scaRedirectUrl, {
    psuId,
    password: `sandbox-${psuId}`,
    decision: 'approve',
    submit: true,
  });
  const token = await consentOnceSettled(customer, started.consentId);
  if (token.status !== 'ACTIVE') throw new Error(`consent ended ${token.status}`);
  return { started, token, callback: submitted! };
}
