import { z } from 'zod';
import { duration, optionalUrl, port } from '../config-fields.ts';

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
    .default('sandbox-bureau-key-0000'),
  /** One credit check's time limit; a check that does not answer is tried again. */
  LENDING_BUREAU_REQUEST_TIMEOUT: duration('10s'),
  /** Attempts of a credit check before the loan is referred to a person (Waiting for approval). */
  LENDING_BUREAU_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** The sandbox credit bureau (sandbox/lending/bureau.ts). */
  SANDBOX_BUREAU_PORT: port(4050),
});

/** Unset, the bureau would be this machine's sandbox bureau with its published key. */
export const lendingBureauProductionKeys = ['LENDING_BUREAU_URL', 'LENDING_BUREAU_API_KEY'] as const;
