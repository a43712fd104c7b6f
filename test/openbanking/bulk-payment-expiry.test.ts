import { afterAll, beforeAll, expect, it } from 'vitest';
import { bulksOf } from '../../sandbox/openbanking/bulk-payments.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bulkOnceFinal, DEBTOR_IBAN, entries, ledgerOf, startBulk } from './bulk-helpers.ts';
import { newCustomer } from './consent-helpers.ts';

/**
 * A bulk the user does not authorise within OPENBANKING_SCA_TIMEOUT: every entry EXPIRED, and the bank
 * bulk cancelled, so that an approval arriving later cannot move money the gateway reported as failed.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { OPENBANKING_SCA_TIMEOUT: '2s', OPENBANKING_BULK_POLL_INTERVAL: '200ms' },
  });
  ledgerOf(platform).setBalance(DEBTOR_IBAN, 1_000_000);
});
afterAll(async () => {
  await platform?.stop();
});

it('not authorised in time: EXPIRED entries, the bank bulk cancelled, a late approval refused', async () => {
  const customer = await newCustomer(platform, 'Expiry agent');
  const before = ledgerOf(platform).debits(DEBTOR_IBAN).length;
  const started = await startBulk(customer, { payments: entries(3) });
  expect(started.status).toBe(201);

  const bulk = await bulkOnceFinal(customer, started.body.bulkId, 20_000);
  expect(bulk).toMatchObject({ status: 'FAILED', failed: 3 });
  expect(bulk.reason).toContain('in time');
  expect(bulk.payments.map((entry) => entry.state)).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED']);

  const atBank = [...bulksOf(platform.sandbox.banks.banks.get('bank-a')!).values()].find(
    (candidate) => candidate.paymentInformationId === started.body.bulkId.replace(/^blk_/, ''),
  )!;
  expect(atBank.transactionStatus).toBe('CANC');
  await expect(
    driveSca(started.body.scaRedirectUrl!, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
    }),
  ).rejects.toThrow('SCA page answered 409');
  expect(ledgerOf(platform).debits(DEBTOR_IBAN).length).toBe(before);
});
