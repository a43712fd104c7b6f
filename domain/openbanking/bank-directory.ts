import { createHash } from 'node:crypto';
import { isValidBIC } from 'ibantools';
import { z } from 'zod';
import { BANK_FLOW_TYPES } from './xs2a.ts';

/** A host a bank's links may name besides its base URL's: `host` or `host:port`, lower-case. */
const linkHost = z
  .string()
  .max(260)
  .refine((text) => {
    try {
      return new URL(`http://${text}`).host === text.toLowerCase();
    } catch {
      return false;
    }
  }, 'a host name or host:port')
  .transform((text) => text.toLowerCase());

/**
 * One bank of the directory, as configured (OPENBANKING_BANKS, a JSON array of these) or as a bank
 * directory answers (`GET {OPENBANKING_BANK_DIRECTORY_URL}` → `{ banks: [...] }`, what the sandbox
 * banks serve at /directory). `code` is the stable key: the public `bankHash` is derived from it.
 */
export const bankDirectoryEntrySchema = z.object({
  code: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lower-case letters, digits and dashes'),
  name: z.string().min(1).max(200),
  country: z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 country code'),
  bic: z.string().refine((bic) => isValidBIC(bic), 'not a valid BIC'),
  xs2aBaseUrl: z.url({ protocol: /^https?$/ }),
  /**
   * Other hosts the bank publishes links on (its downloads, authorisations, …): `host` or `host:port`.
   * A link on a host neither the base URL's nor listed here is refused (decision 0082).
   */
  linkHosts: z.array(linkHost).max(20).default([]),
  bankFlowType: z.enum(BANK_FLOW_TYPES).default('redirect'),
  supportsPagedTransactions: z.boolean().default(false),
});
export type BankDirectoryEntry = z.infer<typeof bankDirectoryEntrySchema>;

export const bankDirectorySchema = z
  .array(bankDirectoryEntrySchema)
  .refine(
    (banks) => new Set(banks.map((bank) => bank.code)).size === banks.length,
    'bank codes must be unique',
  );

/** Parses OPENBANKING_BANKS; throws with the offending entry named. */
export function parseBankDirectory(json: string): BankDirectoryEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('must be a JSON array of banks');
  }
  const result = bankDirectorySchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`${issue.path.join('.') || '(array)'}: ${issue.message}`);
  }
  return result.data;
}

/**
 * The public id of a bank: stable for a bank code across restarts and deployments (so links and
 * documentation keep working), opaque to clients.
 */
export const bankHashOf = (code: string) =>
  createHash('sha256').update(`ob-bank:${code}`).digest('hex').slice(0, 24);
