import { z } from 'zod';
import { duration, optionalUrl, port } from '../config-fields.ts';

/** The key the sandbox bureau requires by default: published, so refused in production. */
export const SANDBOX_BUREAU_API_KEY = 'sandbox-bureau-key-0000';

/**
 * The lending platform's credit bureau (connectors/lending/bureau.ts, docs/lending.md "Credit bureau"):
 * its base URL and API key (sent as X-Api-Key). Unset in sandbox mode, the sandbox bureau `npm start`
 * runs on SANDBOX_BUREAU_PORT; production must name both.
 */
export const lendingBureauConfig = z.object({
  LENDING_BUREAU_URL: optionalUrl,
  LENDING_BUREAU_API_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default(SANDBOX_BUREAU_API_KEY),
  /** One credit check's time limit; a check that does not answer is tried again. */
  LENDING_BUREAU_REQUEST_TIMEOUT: duration('10s'),
  /** Attempts of a credit check before the loan is referred to a person (Waiting for approval). */
  LENDING_BUREAU_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** The sandbox credit bureau (sandbox/lending/bureau.ts). */
  SANDBOX_BUREAU_PORT: port(4050),
});

/** Unset, the bureau would be this machine's sandbox bureau with its published key. */
export const lendingBureauProductionKeys = ['LENDING_BUREAU_URL', 'LENDING_BUREAU_API_KEY'] as const;

export const lendingBureauPartyUrls = ['LENDING_BUREAU_URL'] as const;
export const lendingBureauSandboxValues = [
  {
    variable: 'LENDING_BUREAU_API_KEY',
    value: SANDBOX_BUREAU_API_KEY,
    what: "the sandbox bureau's published key",
  },
] as const;
