import { z } from 'zod';
import { duration, optionalUrl } from '../config-fields.ts';

/**
 * The open-banking gateway the lending platform verifies customers' bank accounts through (decision
 * 0042; connectors/lending/openbanking.ts), as an agent of it:
 * - LENDING_OPENBANKING_URL: the gateway's base (`https://api.example/openbanking`). Unset (sandbox mode
 *   only), the platform's own gateway: `<PUBLIC_BASE_URL or the API's own address>/openbanking`.
 * - LENDING_OPENBANKING_AGENT_HASH: lending's `x-agent-hash` there. Unset (sandbox mode only), lending
 *   signs itself up through the gateway's public `signup/agent` on first use and keeps the hash
 *   encrypted (lending_openbanking_agents).
 * Production requires both.
 */
export const lendingOpenBankingConfig = z.object({
  LENDING_OPENBANKING_URL: optionalUrl,
  LENDING_OPENBANKING_AGENT_HASH: z
    .string()
    .regex(/^agent_[A-Za-z0-9_-]{43}$/, 'must be an agent hash (agent_ + 43 characters)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** One request to the gateway. */
  LENDING_OPENBANKING_REQUEST_TIMEOUT: duration('10s'),
});

export const lendingOpenBankingProductionKeys = [
  'LENDING_OPENBANKING_URL',
  'LENDING_OPENBANKING_AGENT_HASH',
] as const;

export const lendingOpenBankingPartyUrls = ['LENDING_OPENBANKING_URL'] as const;
