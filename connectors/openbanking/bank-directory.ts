import {
  type BankDirectoryEntry,
  bankDirectoryEntrySchema,
} from '../../domain/openbanking/bank-directory.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/**
 * The bank directory as an outside party: `GET {OPENBANKING_BANK_DIRECTORY_URL}` → `{ banks: [...] }`
 * (what the sandbox banks serve at /directory). Read by the bank-directory activities on a schedule.
 */

/** Where the directory of banks is read from: the configured URL, or the sandbox banks in sandbox mode. */
export function bankDirectoryUrlOf(config: Config): string | undefined {
  if (config.OPENBANKING_BANK_DIRECTORY_URL) return config.OPENBANKING_BANK_DIRECTORY_URL;
  return config.PLATFORM_MODE === 'sandbox'
    ? `http://127.0.0.1:${config.SANDBOX_BANKS_PORT}/directory`
    : undefined;
}

/** Reads the directory's banks; an entry that does not parse is logged and left out, not fatal. */
export async function readBankDirectory(
  url: string,
  deps: { config: Pick<Config, 'OPENBANKING_BANK_REQUEST_TIMEOUT'>; logger: Logger; fetch?: typeof fetch },
): Promise<BankDirectoryEntry[]> {
  const response = await (deps.fetch ?? fetch)(url, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(deps.config.OPENBANKING_BANK_REQUEST_TIMEOUT),
  });
  if (!response.ok) throw new Error(`the bank directory answered ${response.status}`);
  const body = (await response.json()) as { banks?: unknown };
  if (!Array.isArray(body.banks)) throw new Error('the bank directory answer has no `banks` array');
  const banks: BankDirectoryEntry[] = [];
  for (const entry of body.banks) {
    const parsed = bankDirectoryEntrySchema.safeParse(entry);
    // One bad entry must not hide the others.
    if (parsed.success) banks.push(parsed.data);
    else deps.logger.warn({ entry, issues: parsed.error.issues }, 'bank directory entry ignored');
  }
  return banks;
}
