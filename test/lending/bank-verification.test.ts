import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BankVerificationView } from '../../application/lending/index.ts';
import {
  lendingOpenBankingAgents,
  lendingOpenBankingUsers,
} from '../../db/schema/lending-payment-options.ts';
import { nameWords, verifyBankAccount } from '../../domain/lending/bank-verification.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Bank verification end to end (decision 0042): lending signs itself up as an agent of the platform's
 * open-banking gateway over its public API, enrols the customer, starts a one-shot account-list
 * consent at Sandbox Bank A; the customer's SCA at the bank is driven over plain HTTP (as a browser
 * would); IsDataProcessed then decides by the accounts the bank listed. Sandbox Bank A's `alice` is
 * Alice Ivanova, holding BG19SBXA96611000000001 (docs/openbanking.md, "Test users and accounts").
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
const BANK_A = bankHashOf('bank-a');
const ALICE_IBAN = 'BG19SBXA96611000000001';

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;
type Settings = BankVerificationView & { banks: { bankHash: string; name: string }[] };

const asCustomer = <T = BankVerificationView>(
  customer: Customer,
  method: string,
  path: string,
  request: Parameters<typeof lendingCall>[3] = {},
) =>
  lendingCall<T>(platform, method, path, {
    key: tenant.keys.paymentOptions,
    token: customer.token,
    ...request,
  });

/** A customer with a loan application and a bank account. */
async function borrower(name: { firstName: string; lastName: string }, iban: string) {
  const customer = await registerCustomer(platform, tenant, completeDetails(name));
  const loan = await lendingCall<{ loanId: string }>(platform, 'POST', '/Customer/Loans/Create', {
    key: tenant.keys.frontOffice,
    token: customer.token,
    body: { productName: 'Personal 12', amount: '5000', term: 12 },
  });
  expect(loan.status, JSON.stringify(loan.body)).toBe(201);
  const account = await asCustomer(customer, 'POST', '/PaymentOptions/BankAccounts', { body: { iban } });
  expect(account.status, JSON.stringify(account.body)).toBe(201);
  return { customer, loanId: loan.body.loanId };
}

/** Settings with the bank: the frame's URL (the bank's SCA page). */
async function openFrame(customer: Customer, loanId: string) {
  const settings = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
    query: { loanId, bankHash: BANK_A },
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  expect(settings.body).toMatchObject({ loanId, status: 'pending', processed: false, bankHash: BANK_A });
  expect(settings.body.frameUrl).toMatch(/\/bank-a\/sca\//);
  return settings.body;
}

const processed = (customer: Customer, loanId: string) =>
  eventually(
    async () => {
      const answer = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed', {
        query: { loanId },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.processed ? answer.body : undefined;
    },
    20_000,
    'the bank verification to be processed',
  );

/** Alice's SCA at Sandbox Bank A in the frame, approved or denied, and the bank's page submitted. */
const scaAsAlice = (frame: Settings, decision: 'approve' | 'deny') =>
  driveSca(frame.frameUrl!, { psuId: 'alice', password: 'sandbox-alice', decision, submit: true });

/** A borrower's verification through Alice's SCA at Sandbox Bank A, once processed. */
async function verifiedThroughAlice(
  name: { firstName: string; lastName: string },
  iban: string,
  decision: 'approve' | 'deny',
) {
  const { customer, loanId } = await borrower(name, iban);
  const frame = await openFrame(customer, loanId);
  await scaAsAlice(frame, decision);
  return { customer, loanId, frame, result: await processed(customer, loanId) };
}

describe('bank verification', () => {
  it('verifies the customer’s account through an account-information consent, SCA at the bank over HTTP', async () => {
    const { customer, loanId } = await borrower({ firstName: 'Alice', lastName: 'Ivanova' }, ALICE_IBAN);

    const start = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
      query: { loanId },
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body).toMatchObject({ status: 'not_started', processed: false, frameUrl: null });
    expect(start.body.banks.map((bank) => bank.bankHash)).toContain(BANK_A);

    const frame = await openFrame(customer, loanId);
    // Asked again while the frame is open: the same consent, not a second one.
    const again = await openFrame(customer, loanId);
    expect(again.verificationId).toBe(frame.verificationId);
    expect(again.frameUrl).toBe(frame.frameUrl);

    const pending = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed', {
      query: { loanId },
    });
    expect(pending.body).toMatchObject({ status: 'pending', processed: false, verified: false });

    const { returnForm, submitted } = await scaAsAlice(frame, 'approve');
    expect(submitted?.status).toBeLessThan(400);
    // The frame ends at the gateway's callback, whose path carries the consent's state.
    const state = /\/state\/([^/?]+)/.exec(returnForm.action)?.[1];
    expect(state).toBeDefined();

    const wrong = await asCustomer(customer, 'POST', '/PaymentOptions/BankVerification/SaveData', {
      body: { loanId, state: 'not-the-state' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.fields?.map((field) => field.field)).toEqual(['state']);

    const saved = await asCustomer(customer, 'POST', '/PaymentOptions/BankVerification/SaveData', {
      body: { loanId, state: decodeURIComponent(state!) },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.frameDataSavedAt).not.toBeNull();

    const result = await processed(customer, loanId);
    expect(result).toMatchObject({
      status: 'verified',
      verified: true,
      consentStatus: 'ACTIVE',
      matchedIban: ALICE_IBAN,
      reason: null,
    });

    // Decided: Settings answers the outcome, and a verified loan cannot be skipped.
    const after = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
      query: { loanId, bankHash: BANK_A },
    });
    expect(after.body).toMatchObject({
      status: 'verified',
      verificationId: frame.verificationId,
      frameUrl: null,
    });
    const skip = await asCustomer(
      customer,
      'POST',
      `/PaymentOptions/BankVerification/CancelBankVerification/${loanId}`,
      { query: { reason: 'changed my mind' } },
    );
    expect(skip.status).toBe(409);
    expect(skip.body.error?.code).toBe('bank_verification_completed');
  });

  it('does not verify when none of the accounts the bank lists is the customer’s', async () => {
    const { result } = await verifiedThroughAlice(
      { firstName: 'Alice', lastName: 'Ivanova' },
      'DE89370400440532013000',
      'approve',
    );
    expect(result).toMatchObject({
      status: 'not_verified',
      verified: false,
      consentStatus: 'ACTIVE',
      matchedIban: null,
    });
    expect(result.reason).toContain('none of the accounts');
  });

  it('does not verify an account of the customer’s that the bank says another person holds', async () => {
    const { result } = await verifiedThroughAlice(
      { firstName: 'Jane', lastName: 'Doe' },
      ALICE_IBAN,
      'approve',
    );
    expect(result).toMatchObject({ status: 'not_verified', matchedIban: ALICE_IBAN });
    expect(result.reason).toContain('name');
  });

  it('does not verify when the customer denies at the bank', async () => {
    const { customer, loanId, frame, result } = await verifiedThroughAlice(
      { firstName: 'Alice', lastName: 'Ivanova' },
      ALICE_IBAN,
      'deny',
    );
    expect(result).toMatchObject({ status: 'not_verified', consentStatus: 'REJECTED' });
    // A verification that did not pass may be started again.
    const retry = await openFrame(customer, loanId);
    expect(retry.verificationId).not.toBe(frame.verificationId);
  });

  it('is skipped with a reason, which is required and recorded', async () => {
    const { customer, loanId } = await borrower({ firstName: 'Alice', lastName: 'Ivanova' }, ALICE_IBAN);
    await openFrame(customer, loanId);
    const path = `/PaymentOptions/BankVerification/CancelBankVerification/${loanId}`;
    const noReason = await asCustomer(customer, 'POST', path);
    expect(noReason.status).toBe(400);
    expect(noReason.body.error?.fields?.map((field) => field.field)).toContain('reason');

    const skipped = await asCustomer(customer, 'POST', path, { query: { reason: 'No online banking' } });
    expect(skipped.status, JSON.stringify(skipped.body)).toBe(200);
    expect(skipped.body).toMatchObject({
      status: 'skipped',
      processed: true,
      verified: false,
      reason: 'No online banking',
    });
    const read = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed', {
      query: { loanId },
    });
    expect(read.body).toMatchObject({ status: 'skipped', reason: 'No online banking' });
    const save = await asCustomer(customer, 'POST', '/PaymentOptions/BankVerification/SaveData', {
      body: { loanId },
    });
    expect(save.status).toBe(409);
    expect(save.body.error?.code).toBe('no_pending_bank_verification');
  });

  it('a bank the gateway does not know is 400 naming bankHash', async () => {
    const { customer, loanId } = await borrower({ firstName: 'Alice', lastName: 'Ivanova' }, ALICE_IBAN);
    const answer = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
      query: { loanId, bankHash: '0'.repeat(24) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error?.fields?.map((field) => field.field)).toEqual(['bankHash']);
  });

  it('another customer’s loan is 404 on every bank verification operation', async () => {
    const { loanId } = await borrower({ firstName: 'Alice', lastName: 'Ivanova' }, ALICE_IBAN);
    const other = await registerCustomer(platform, tenant, completeDetails());
    for (const [method, path, request] of [
      ['GET', '/PaymentOptions/BankVerification/Settings', { query: { loanId, bankHash: BANK_A } }],
      ['GET', '/PaymentOptions/BankVerification/IsDataProcessed', { query: { loanId } }],
      ['POST', '/PaymentOptions/BankVerification/SaveData', { body: { loanId } }],
      [
        'POST',
        `/PaymentOptions/BankVerification/CancelBankVerification/${loanId}`,
        { query: { reason: 'x' } },
      ],
    ] as const) {
      const answer = await asCustomer(other, method, path, request);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
    }
  });
});

describe('lending as an agent of the open-banking gateway', () => {
  it('signed itself up (sandbox) and keeps its agent hash and the customers’ user hashes encrypted', async () => {
    const agents = await platform.db.select().from(lendingOpenBankingAgents);
    expect(agents).toHaveLength(1);
    expect(agents[0]!.gatewayUrl).toBe(`${platform.apiUrl}/openbanking`);
    expect(agents[0]!.agentHashSealed).toMatch(/^v1\./);
    expect(agents[0]!.agentHashSealed).not.toContain('agent_');
    const users = await platform.db.select().from(lendingOpenBankingUsers);
    expect(users.length).toBeGreaterThan(0);
    for (const user of users) expect(user.userHashSealed).not.toContain('user_');
  });
});

describe('the verification rule (domain/lending/bank-verification.ts)', () => {
  const alice = [{ iban: 'BG19SBXA96611000000001', ownerName: 'IVANOVA, Alíce' }];
  it('compares names as sets of words, case- and accent-insensitively', () => {
    expect(nameWords('IVANOVA, Alíce')).toEqual(['alice', 'ivanova']);
    expect(
      verifyBankAccount(alice, [{ iban: 'BG19 SBXA 9661 1000 0000 01', holderName: null }], 'Alice Ivanova'),
    ).toEqual({ verified: true, matchedIban: 'BG19SBXA96611000000001', reason: null });
  });
  it('accepts the account’s holder name, and refuses a partial name or a missing owner', () => {
    const account = { iban: 'BG19SBXA96611000000001', holderName: 'Alice Ivanova' };
    expect(verifyBankAccount(alice, [account], 'Jane Doe').verified).toBe(true);
    expect(verifyBankAccount(alice, [{ ...account, holderName: null }], 'Alice').verified).toBe(false);
    expect(
      verifyBankAccount([{ iban: account.iban, ownerName: null }], [account], 'Alice Ivanova').verified,
    ).toBe(false);
    expect(verifyBankAccount([], [account], 'Alice Ivanova').reason).toBe('the bank listed no accounts');
  });
});

describe('bank verification reads without loanId (the spec lists none)', () => {
  it('a customer without a loan: the banks, loanId null; a consent needs a loan (409 no_loan)', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const settings = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings');
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body).toMatchObject({ loanId: null, status: 'not_started', processed: false });
    expect(settings.body.banks.map((bank) => bank.bankHash)).toContain(BANK_A);
    const consent = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
      query: { bankHash: BANK_A },
    });
    expect(consent.status).toBe(409);
    expect(consent.body.error?.code).toBe('no_loan');
    const read = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed');
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toMatchObject({
      loanId: null,
      status: 'not_started',
      processed: false,
      verified: false,
    });
  }, 60_000);

  it('a customer with a loan: Settings and IsDataProcessed act on their newest open loan', async () => {
    const { customer, loanId } = await borrower({ firstName: 'Alice', lastName: 'Ivanova' }, ALICE_IBAN);
    const banks = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings');
    expect(banks.status, JSON.stringify(banks.body)).toBe(200);
    expect(banks.body).toMatchObject({ loanId, status: 'not_started' });
    const frame = await asCustomer<Settings>(customer, 'GET', '/PaymentOptions/BankVerification/Settings', {
      query: { bankHash: BANK_A },
    });
    expect(frame.status, JSON.stringify(frame.body)).toBe(200);
    expect(frame.body).toMatchObject({ loanId, status: 'pending', bankHash: BANK_A });
    const pending = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed');
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body).toMatchObject({
      loanId,
      status: 'pending',
      verificationId: frame.body.verificationId,
    });
    await scaAsAlice(frame.body, 'approve');
    const decided = await eventually(
      async () => {
        const answer = await asCustomer(customer, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed');
        return answer.body.processed ? answer.body : undefined;
      },
      20_000,
      'the verification processed without loanId',
    );
    expect(decided).toMatchObject({ loanId, status: 'verified', verified: true, matchedIban: ALICE_IBAN });
    // Another customer's loan is never the default: a customer without a loan still sees none.
    const other = await registerCustomer(platform, tenant, completeDetails());
    const theirs = await asCustomer(other, 'GET', '/PaymentOptions/BankVerification/IsDataProcessed');
    expect(theirs.body).toMatchObject({ loanId: null, status: 'not_started' });
  }, 90_000);
});
