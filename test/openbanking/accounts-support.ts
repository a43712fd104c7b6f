import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addAccounts, bankHash, type Customer, newCustomer } from './consent-helpers.ts';

/** What the account-information tests share: Alice with her accounts at bank A, and a user of another agent. */

export interface Account {
  ibanId: string;
  iban: string;
  currency: string;
  ownerName: string | null;
  freshness: { refreshedAt: string | null; refreshError: string | null };
  consent?: { consentId: string; status: string; bankStatus: string | null; validUntil: string };
}
export interface TransactionList {
  booked: { transactionId: string; bookingDate: string; amount: string }[];
  pending: { transactionId: string; valueDate: string }[];
  freshness: { refreshedAt: string | null; refreshError: string | null };
}

export interface AccountsPlatform {
  platform: TestPlatform;
  alice: Customer;
  aliceAccounts: Account[];
  other: Customer;
}

/** A platform of its own (one database per test file) with Alice's accounts added through a consent. */
export async function startAccountsPlatform(): Promise<AccountsPlatform> {
  const platform = await startTestPlatform();
  const alice = await newCustomer(platform);
  const other = await newCustomer(platform, 'Other agent');
  await addAccounts(alice, 'alice', { bankHash: bankHash('bank-a') });
  const { body } = await alice.call<{ ibans: Account[] }>('GET', '/api/8/ibans', { headers: alice.headers });
  return { platform, alice, aliceAccounts: body.ibans, other };
}

/** Alice's account in BGN. */
export const bgnAccountOf = (accounts: Account[]) => accounts.find((account) => account.currency === 'BGN')!;
