import { z } from 'zod';
import { duration, optionalUrl } from '../config-fields.ts';

/**
 * How the lending platform sends the SMS codes that sign loan documents (decision 0040): through the
 * messaging gateway's public HTTP API (`POST {LENDING_MESSAGING_URL}/sms?at=...`), as any client of it,
 * with an access token of its own messaging account.
 */
export const lendingMessagingConfig = z.object({
  /** The messaging gateway; unset, the platform's own (`<the API's address>/messaging`). */
  LENDING_MESSAGING_URL: optionalUrl,
  /**
   * Lending's access token at the gateway (`npm run admin -- messaging:token --name "Lending"`). Unset in
   * sandbox mode, the process that starts the API provisions one (test/support/isolated-platform.ts);
   * production must set it.
   */
  LENDING_MESSAGING_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The `from` of the codes: an alphanumeric sender ID approved for lending's account (or a verified number). */
  LENDING_MESSAGING_SENDER: z.string().min(1).max(16).default('LENDING'),
  LENDING_MESSAGING_REQUEST_TIMEOUT: duration('10s'),
  /** How long a signing code may be used. */
  LENDING_SIGNING_CODE_TTL: duration('10m'),
  /** Wrong codes a signing code survives; after the last one a new code must be asked for. */
  LENDING_SIGNING_CODE_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /**
   * Codes ResendSmsCode sends for one loan (all its documents) in one clock hour; beyond it, 429
   * `sms_code_limit_reached` with Retry-After (each code is a paid SMS and grants new guesses).
   */
  LENDING_SIGNING_CODE_SENDS_PER_HOUR: z.coerce.number().int().min(1).max(100).default(5),
});

/** Unset in production, codes would go to this machine's own gateway under no account. */
export const lendingMessagingProductionKeys = ['LENDING_MESSAGING_URL', 'LENDING_MESSAGING_TOKEN'] as const;

export const lendingMessagingPartyUrls = ['LENDING_MESSAGING_URL'] as const;
