import { and, count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { endToEndIdOf } from '../../domain/openbanking/bulk-payments.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import {
  amountMinorOf,
  authorise,
  bulkOnceFinal,
  creditorIban,
  DEBTOR_IBAN,
  entries,
  ledgerOf,
  startBulk,
} from './bulk-helpers.ts';
import { type Customer, newCustomer } from './consent-helpers.ts';

/**
 * A bulk of 1,000 entries against a real crash: the worker runs as its own OS process and is killed
 * with SIGKILL while the bulk's batches are being recorded (some entries recorded, others not); a new
 * process takes over. Every entry must end exactly once, and the bank's ledger, the witness, must hold
 * exactly one debit per confirmed entry and none for a rejected one.
 *
 * The takeover costs about 10 s (the dead worker's sticky queue times out), as in a real crash.
 */

let platform: TestPlatform;
let customer: Customer;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: 'none',
    env: { OPENBANKING_BULK_BATCH_SIZE: '50', OPENBANKING_BULK_POLL_INTERVAL: '200ms' },
  });
  customer = await newCustomer(platform, 'Crash agent');
  ledgerOf(platform).setBalance(DEBTOR_IBAN, 1_000_000_000);
});
afterEach(async () => {
  await workers.killAll();
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

/** Entries of the bulk in `status` in the read model. */
const recorded = async (bulkId: string, status: 'WAITING' | 'CONFIRMED' | 'FAILED') =>
  (
    await platform.db
      .select({ value: count() })
      .from(obPayments)
      .where(and(eq(obPayments.bulkId, bulkId), eq(obPayments.status, status)))
  )[0]!.value;

it('a worker killed mid-batch: every entry recorded once, every confirmed entry debited once', async () => {
  const ledger = ledgerOf(platform);
  const rejected = creditorIban(3);
  ledger.setBehaviour(rejected, { kind: 'reject' });
  const before = ledger.debits(DEBTOR_IBAN).length;
  const first = await workers.start();

  const started = await startBulk(customer, { payments: entries(1000) });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await authorise(started.body.scaRedirectUrl!);
  // The bank answers the entries slowly from now on, so the batches take a while to record.
  ledger.setBehaviour(DEBTOR_IBAN, { kind: 'slow', delayMs: 400 });

  // Kill the worker once some batches are recorded and others are not.
  await eventually(
    async () => {
      const done =
        (await recorded(started.body.bulkId, 'CONFIRMED')) + (await recorded(started.body.bulkId, 'FAILED'));
      return done > 0 ? done : undefined;
    },
    60_000,
    'the first batches to be recorded',
  );
  await first.kill();
  const waitingAtCrash = await recorded(started.body.bulkId, 'WAITING');
  expect(waitingAtCrash).toBeGreaterThan(0);

  ledger.setBehaviour(DEBTOR_IBAN, { kind: 'normal' });
  await workers.start();
  const bulk = await bulkOnceFinal(customer, started.body.bulkId, 90_000);

  expect(bulk).toMatchObject({ status: 'PARTIALLY_CONFIRMED', confirmed: 980, failed: 20, waiting: 0 });
  const debits = ledger.debits(DEBTOR_IBAN).slice(before);
  expect(debits).toHaveLength(980);
  expect(new Set(debits.map((debit) => debit.paymentId)).size).toBe(980);
  const debited = new Map(debits.map((debit) => [debit.paymentId, debit.amountMinor]));
  for (const entry of bulk.payments) {
    expect(entry.status).toBe(entry.creditorIban === rejected ? 'FAILED' : 'CONFIRMED');
    expect(debited.get(endToEndIdOf(entry.code))).toBe(
      entry.status === 'CONFIRMED' ? amountMinorOf(entry.bulkSeq) : undefined,
    );
  }
}, 180_000);
