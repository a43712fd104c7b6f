import { expect } from 'vitest';
import { ibanOf, SANDBOX_BANKS } from '../../sandbox/openbanking/index.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import { bankHash, type Customer } from './consent-helpers.ts';

/**
 * Helpers of the bulk-payment tests: the debtor (Alice's BGN account at Bank A, with a balance set in
 * the bank's ledger), creditor IBANs at Bank B, entries, and a bulk authorised at the bank's SCA page.
 */

export const DEBTOR_IBAN = ibanOf(SANDBOX_BANKS.find((bank) => bank.code === 'bank-a')!, '00000001');
const bankB = SANDBOX_BANKS.find((bank) => bank.code === 'bank-b')!;
export const creditorIban = (n: number) => ibanOf(bankB, String(70_000_000 + n));

export const ledgerOf = (platform: TestPlatform) => platform.sandbox.banks.banks.get('bank-a')!.ledger;

/** Entry i: to creditor i % creditors, amount (i % 9 + 1).25 BGN. */
export function entries(
  count: number,
  creditors = 50,
  extra: (i: number) => Record<string, unknown> = () => ({}),
) {
  return Array.from({ length: count }, (_, i) => ({
    creditorIban: creditorIban(i % creditors),
    creditorName: `Creditor ${i % creditors}`,
    amount: `${(i % 9) + 1}.25`,
    currency: 'BGN',
    remittanceInformation: `Invoice ${i}`,
    ...extra(i),
  }));
}

export const amountMinorOf = (i: number) => ((i % 9) + 1) * 100 + 25;

export interface BulkStarted {
  bulkId: string;
  status: string;
  entries: number;
  scaRedirectUrl: string | null;
  state?: string;
  repeated: boolean;
  reason: string | null;
}

export async function startBulk(
  customer: Customer,
  body: Record<string, unknown>,
  options: { kind?: string; idempotencyKey?: string } = {},
) {
  return customer.call<
    BulkStarted & { error?: { code: string; fields?: { field: string; message: string }[] } }
  >('POST', `/api/8/bulk-payments/${options.kind ?? 'payment'}`, {
    headers: {
      ...customer.headers,
      'user-agent': 'BulkTest/1.0',
      ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
    },
    body: { bankHash: bankHash('bank-a'), debtorIban: DEBTOR_IBAN, ...body },
  });
}

/** Alice approves (or denies) the bulk at Bank A's SCA page; the bank posts back to the gateway. */
export async function authorise(scaRedirectUrl: string, decision: 'approve' | 'deny' = 'approve') {
  const { submitted } = await driveSca(scaRedirectUrl, {
    psuId: 'alice',
    password: 'sandbox-alice',
    decision,
    submit: true,
  });
  expect(submitted!.status).toBeLessThan(400);
}

export interface BulkView {
  bulkId: string;
  status: string;
  entries: number;
  confirmed: number;
  failed: number;
  waiting: number;
  reason: string | null;
  payments: {
    code: string;
    bulkSeq: number;
    status: string;
    state: string;
    creditorIban: string;
    amount: string;
    bankTransactionStatus: string | null;
    statusReason: string | null;
  }[];
}

/** The bulk with all its entries, as POST bulk-payments/search answers it to the agent. */
export async function readBulk(customer: Customer, bulkId: string, entriesLimit = 1000): Promise<BulkView> {
  const { status, body } = await customer.call<{ items: BulkView[] }>('POST', '/api/8/bulk-payments/search', {
    headers: { 'x-agent-hash': customer.agentHash },
    body: { criteria: { bulkId }, entriesLimit },
  });
  expect(status).toBe(200);
  expect(body.items).toHaveLength(1);
  return body.items[0]!;
}

export const FINAL = ['CONFIRMED', 'PARTIALLY_CONFIRMED', 'FAILED'];

export function bulkOnceFinal(customer: Customer, bulkId: string, timeoutMs = 60_000): Promise<BulkView> {
  return eventually(
    async () => {
      const bulk = await readBulk(customer, bulkId, 0);
      return FINAL.includes(bulk.status) ? readBulk(customer, bulkId) : undefined;
    },
    timeoutMs,
    `bulk ${bulkId} to finish`,
  );
}
