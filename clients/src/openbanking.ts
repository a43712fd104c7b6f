import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openbanking.ts';
import { type ExtraClientOptions, serviceUrl } from './shared.ts';

export type { components as OpenBankingComponents, paths as OpenBankingPaths };
export type OpenBankingClient = Client<paths>;
/** The error body of every open-banking operation: `{ error: { code, message, fields? } }`. */
export type OpenBankingError = components['schemas']['Error'];

/**
 * The identities of the open-banking gateway (its document's security schemes), sent as headers: an
 * agent acts with `agentHash` (`x-agent-hash`), for one of its customers with `userHash` (`x-user-hash`)
 * or a `userToken` (bearer JWT from POST /api/8/usertoken); `publicHash` is the agent's public tier,
 * `adminHash` the operator's.
 */
export interface OpenBankingCredential {
  agentHash?: string;
  userHash?: string;
  userToken?: string;
  publicHash?: string;
  adminHash?: string;
}

/**
 * A typed client of the open-banking gateway (`/openbanking`), API version 8 (the current complete
 * version; its paths are `/api/8/...`), e.g. `await openBanking.GET('/api/8/banks')`.
 */
export function createOpenBankingClient(
  baseUrl: string,
  credential: OpenBankingCredential,
  options: ExtraClientOptions = {},
): OpenBankingClient {
  const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined) };
  if (credential.agentHash) headers['x-agent-hash'] = credential.agentHash;
  if (credential.userHash) headers['x-user-hash'] = credential.userHash;
  if (credential.userToken) headers.authorization = `Bearer ${credential.userToken}`;
  if (credential.publicHash) headers['x-public-hash'] = credential.publicHash;
  if (credential.adminHash) headers['x-admin-hash'] = credential.adminHash;
  return createClient<paths>({ ...options, baseUrl: serviceUrl(baseUrl, '/openbanking'), headers });
}
