import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/lending.ts';
import { type ExtraClientOptions, serviceUrl } from './shared.ts';

export type { components as LendingComponents, paths as LendingPaths };
export type LendingClient = Client<paths>;
/** The error body of every lending operation: `{ error: { code, message, fields? } }`. */
export type LendingError = components['schemas']['Error'];

/** A tenant's API key (`lender_ApiKey`) and, for operations that act for a person, a user token. */
export interface LendingCredential {
  apiKey: string;
  /** `lender_UserAuthToken`, from Customer/Register, Investor/Register or User/Login. */
  userAuthToken?: string;
}

/**
 * A typed client of the lending platform (`/lending`, operations at `/PublicApi/v7-12/...`): every call
 * carries the tenant's `lender_ApiKey` header and, when given, the person's `lender_UserAuthToken`, e.g.
 * `await lending.GET('/PublicApi/v7-12/Customer/Loans/{loanId}', { params: { path: { loanId } } })`.
 * A customer's client once registered: `createLendingClient(url, { apiKey, userAuthToken })`.
 */
export function createLendingClient(
  baseUrl: string,
  credential: LendingCredential,
  options: ExtraClientOptions = {},
): LendingClient {
  return createClient<paths>({
    ...options,
    baseUrl: serviceUrl(baseUrl, '/lending'),
    headers: {
      ...(options.headers as Record<string, string> | undefined),
      lender_ApiKey: credential.apiKey,
      ...(credential.userAuthToken ? { lender_UserAuthToken: credential.userAuthToken } : {}),
    },
  });
}
