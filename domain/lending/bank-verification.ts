import { createHash } from 'node:crypto';
import { electronicFormatIBAN } from 'ibantools';

/**
 * Bank verification's rule (decision 0042, design: the spec says only "whether the verification
 * passed"): the borrower holds the account when one of the accounts the bank listed under the consent
 * has the IBAN of one of the customer's bank accounts AND its owner name is the customer's name (first
 * and last name) or that bank account's holder name. Names compare as sets of words, case- and
 * accent-insensitive ("IVANOVA, Alice" is "Alice Ivanova"); an account the bank lists without an owner
 * name does not verify.
 */

export interface ListedBankAccount {
  iban: string;
  ownerName: string | null;
}

export interface CustomerBankAccount {
  iban: string;
  holderName: string | null;
}

export type VerificationOutcome =
  | { verified: true; matchedIban: string; reason: null }
  | { verified: false; matchedIban: string | null; reason: string };

const normalIban = (iban: string) => electronicFormatIBAN(iban) ?? iban.replace(/\s+/g, '').toUpperCase();

/** The words of a name: lower case, accents removed, punctuation ignored; sorted and unique. */
export function nameWords(name: string): string[] {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return [...new Set(words)].sort();
}

const sameName = (a: string, b: string) => {
  const left = nameWords(a);
  const right = nameWords(b);
  return left.length > 0 && left.length === right.length && left.every((word, i) => word === right[i]);
};

export function verifyBankAccount(
  listed: readonly ListedBankAccount[],
  customerAccounts: readonly CustomerBankAccount[],
  customerName: string | null,
): VerificationOutcome {
  if (listed.length === 0)
    return { verified: false, matchedIban: null, reason: 'the bank listed no accounts' };
  const byIban = new Map(customerAccounts.map((account) => [normalIban(account.iban), account]));
  let ibanMatch: string | null = null;
  for (const account of listed) {
    const iban = normalIban(account.iban);
    const own = byIban.get(iban);
    if (!own) continue;
    ibanMatch = iban;
    const names = [customerName, own.holderName].filter((name): name is string => Boolean(name));
    if (account.ownerName && names.some((name) => sameName(name, account.ownerName!))) {
      return { verified: true, matchedIban: iban, reason: null };
    }
  }
  return ibanMatch
    ? { verified: false, matchedIban: ibanMatch, reason: 'the account is not held in the customer’s name' }
    : {
        verified: false,
        matchedIban: null,
        reason: 'none of the accounts at the bank is one of the customer’s bank accounts',
      };
}

/** What a consent's `state` (shown once by the gateway) is kept and matched as: its SHA-256. */
export const consentStateDigest = (state: string) => createHash('sha256').update(state).digest('hex');
