import { randomBytes } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSiblingCallActivities } from '../../activities/lending/index.ts';
import {
  type BankVerificationSettings,
  type BankVerificationView,
  lending,
} from '../../application/lending/index.ts';
import { lendingOpenBankingUsers } from '../../db/schema/lending-payment-options.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { createLogger } from '../../platform/logger.ts';
import { platformDataConverter } from '../../platform/payload-codec.ts';
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
 * Bank verification on the default embedded stack (decision 0047): `npm start` without DATABASE_URL runs
 * on PGlite, one connection for the API, the worker and the open-banking gateway. With the gateway
 * called inside lending's transaction (before 0047) the gateway's own write waited for it and every
 * Settings answered 503 after 10 s. Here the whole flow runs over HTTP on PGlite; and an enrolment whose
 * answer the gateway sent but lending never received is carried on to a usable enrolment, not into a
 * `user_exists` loop.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
const BANK_A = bankHashOf('bank-a');
const ALICE_IBAN = 'BG19SBXA96611000000001';
const alice = { firstName: 'Alice', lastName: 'Ivanova' };

beforeAll(async () => {
  platform = await startTestPlatform({ database: 'pglite' });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

/** A customer (Alice at Sandbox Bank A) with a loan application and her bank account. */
async function borrower() {
  const customer = await registerCustomer(platform, tenant, completeDetails(alice));
  const call = <T>(method: string, path: string, request: Parameters<typeof lendingCall>[3]) =>
    lendingCall<T>(platform, method, path, { token: customer.token, ...request });
  const loan = await call<{ loanId: string }>('POST', '/Customer/Loans/Create', {
    key: tenant.keys.frontOffice,
    body: { productName: 'Personal 12', amount: '5000', term: 12 },
  });
  expect(loan.status, JSON.stringify(loan.body)).toBe(201);
  const account = await call('POST', '/PaymentOptions/BankAccounts', {
    key: tenant.keys.paymentOptions,
    body: { iban: ALICE_IBAN },
  });
  expect(account.status, JSON.stringify(account.body)).toBe(201);
  return { customer, loanId: loan.body.loanId };
}

/** Alice approves at the bank's SCA page, as her browser would. */
const approveAsAlice = (frameUrl: string) =>
  driveSca(frameUrl, { psuId: 'alice', password: 'sandbox-alice', decision: 'approve', submit: true });

describe('bank verification on PGlite (npm start without DATABASE_URL)', () => {
  it('runs end to end over HTTP: banks, the bank’s SCA page, SaveData, IsDataProcessed → verified', async () => {
    const { customer, loanId } = await borrower();
    const asCustomer = <T = BankVerificationView>(method: string, path: string, request = {}) =>
      lendingCall<T>(platform, method, path, {
        key: tenant.keys.paymentOptions,
        token: customer.token,
        ...request,
      });
    const settings = '/PaymentOptions/BankVerification/Settings';

    const started = Date.now();
    const banks = await asCustomer<BankVerificationSettings>('GET', settings, { query: { loanId } });
    expect(banks.status, JSON.stringify(banks.body)).toBe(200);
    expect(banks.body.banks.map((bank) => bank.bankHash)).toContain(BANK_A);
    // The enrolment no longer waits on a lock the gateway's write needs (it took the 10 s timeout).
    expect(Date.now() - started).toBeLessThan(8_000);

    const frame = await asCustomer<BankVerificationSettings>('GET', settings, {
      query: { loanId, bankHash: BANK_A },
    });
    expect(frame.status, JSON.stringify(frame.body)).toBe(200);
    expect(frame.body).toMatchObject({ status: 'pending', bankHash: BANK_A });
    const { returnForm } = await approveAsAlice(frame.body.frameUrl!);
    const state = decodeURIComponent(/\/state\/([^/?]+)/.exec(returnForm.action)?.[1] ?? '');

    const saved = await asCustomer('POST', '/PaymentOptions/BankVerification/SaveData', {
      body: { loanId, state },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const result = await eventually(
      async () => {
        const answer = await asCustomer('GET', '/PaymentOptions/BankVerification/IsDataProcessed', {
          query: { loanId },
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        return answer.body.processed ? answer.body : undefined;
      },
      20_000,
      'the bank verification to be processed',
    );
    expect(result).toMatchObject({ status: 'verified', verified: true, matchedIban: ALICE_IBAN });
  });
});

describe('an enrolment whose answer was lost', () => {
  /** What the gateway was asked to enrol (the address) and what it answered, in order. */
  const enrolments: { email: string; status: number }[] = [];
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let taskQueue: string;

  beforeAll(async () => {
    // The gateway processes the first enrolment, and its answer is dropped on the way back.
    let dropped = false;
    const droppingFetch: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (String(input).endsWith('/api/8/signup')) {
        enrolments.push({ email: JSON.parse(String(init?.body)).email, status: answer.status });
        if (!dropped) {
          dropped = true;
          await answer.text();
          throw new TypeError('fetch failed: the connection was reset');
        }
      }
      return answer;
    };
    taskQueue = `lost-enrolment-${randomBytes(4).toString('hex')}`;
    worker = await Worker.create({
      connection: await NativeConnection.connect({ address: inject('temporalAddress') }),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: platformDataConverter(platform.config),
      activities: createSiblingCallActivities({
        db: platform.db,
        config: platform.config,
        logger: createLogger('silent'),
        fetch: droppingFetch,
      }),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
  });

  it('is carried on under the next address: one usable enrolment, no user_exists loop', async () => {
    const { customer, loanId } = await borrower();
    const deps = {
      db: platform.db,
      temporal: platform.client,
      config: { ...platform.config, TEMPORAL_TASK_QUEUE: taskQueue },
      logger: createLogger('silent'),
    };
    const who = { tenantId: tenant.tenantId, customerId: customer.customerId };
    const caller = { apiBaseUrl: platform.apiUrl };

    const settings = await lending.verificationSettings(deps, { customer: who, loanId, caller });
    expect(settings.banks.map((bank) => bank.bankHash)).toContain(BANK_A);
    const first = `${customer.customerId}@customers.lending.invalid`;
    expect(enrolments).toEqual([
      // Enrolled, answer lost; asked again by the activity's retry: the address is taken.
      { email: first, status: 201 },
      { email: first, status: 409 },
      // The workflow moves to the next address and keeps that enrolment.
      { email: `${customer.customerId}+1@customers.lending.invalid`, status: 201 },
    ]);
    const users = await platform.db
      .select()
      .from(lendingOpenBankingUsers)
      .where(eq(lendingOpenBankingUsers.customerId, customer.customerId));
    expect(users).toHaveLength(1);

    // Every later step finds that enrolment (nothing more is enrolled) and it verifies end to end.
    const frame = await lending.verificationSettings(deps, {
      customer: who,
      loanId,
      bankHash: BANK_A,
      caller,
    });
    expect(frame).toMatchObject({ status: 'pending', bankHash: BANK_A });
    await approveAsAlice(frame.frameUrl!);
    const result = await eventually(
      async () => {
        const view = await lending.processVerification(deps, { customer: who, loanId, caller });
        return view.processed ? view : undefined;
      },
      20_000,
      'the bank verification to be processed',
    );
    expect(result).toMatchObject({ status: 'verified', matchedIban: ALICE_IBAN });
    expect(enrolments).toHaveLength(3);
  });
});
