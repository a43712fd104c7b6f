import { createSign, generateKeyPairSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checksumOf } from '../../domain/epay-merchant.ts';
import { type Desk, newOperator, openDesk } from '../collect/desk-client.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  activeLoan,
  approvedLoan,
  type CollectMerchant,
  issueDisbursement,
  issued,
  loanOf,
  makeMerchant,
  notified,
  notifyUrlOf,
  QUIET_MS,
  RECIPIENT,
} from './disbursement-support.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, historyOf, type LendingTestTenant, lendingCall, pause } from './support.ts';

/**
 * IssueDisbursement through the collection gateway (decision 0041), end to end over HTTP: the loan is
 * paid out as a cash payout registered at the gateway through its merchant interface with the tenant's
 * merchant credentials; a cash desk pays it out to the customer after the identity check; the gateway
 * notifies lending's receiver, and the loan follows: PAID → Active once, EXPIRED → Approved with the
 * reason, issued again. Refusals, forged notifications, and the collect ledger balanced after each test.
 */

const ADMIN_TOKEN = 'admin-token-for-the-disbursement-tests-0123456789';
/** Payouts expire this long after registration (COLLECT_PAYOUT_EXPIRY): time enough to collect the others. */
const PAYOUT_EXPIRY_MS = 8_000;

let platform: TestPlatform;
let tenant: LendingTestTenant;
let merchant: CollectMerchant;
let desk: Desk;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { ADMIN_TOKEN, COLLECT_PAYOUT_EXPIRY: `${PAYOUT_EXPIRY_MS}ms` },
  });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  merchant = await makeMerchant(platform, tenant, ADMIN_TOKEN);
  desk = await openDesk(platform, await newOperator(platform));
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const statusOf = async (loanId: string) => (await loanOf(platform, tenant, loanId)).status;

describe('a loan paid out at a cash desk', () => {
  it('IssueDisbursement registers a cash payout; collected with the right identity, the loan is Active once', async () => {
    const loanId = await approvedLoan(platform, tenant);
    const { idn, invoice } = await issued(platform, tenant, loanId);

    // The desk sees a payout of the loan amount (never its registered recipient).
    const lookedUp = await desk.lookUp(idn);
    expect(lookedUp.status).toBe(200);
    expect(lookedUp.body).toMatchObject({ kind: 'payout_office', status: 'PENDING', action: 'payout' });
    expect(JSON.stringify(lookedUp.body)).not.toContain(RECIPIENT.recipientId);

    // Someone else with the code is refused by the identity check; nothing moves.
    const impostor = await desk.payOut(idn, { recipientName: 'John Roe', recipientId: '987654321' });
    expect(impostor.status).toBe(422);
    expect(impostor.body.error?.code).toBe('identity_mismatch');
    expect(await statusOf(loanId)).toBe('Approved');

    const paid = await desk.payOut(idn, RECIPIENT);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);

    const active = await activeLoan(platform, tenant, loanId);
    expect(active.disbursement).toMatchObject({ amount: '3000.00' });
    expect(active.disbursement?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // The gateway notified lending once, and lending answered OK.
    const notification = await notified(platform, merchant, invoice, 'PAID');
    expect(notification).toMatchObject({ status: 'PAID', delivery: 'delivered', attemptCount: 1 });
    expect(notification.attempts[0]?.reply).toBe('OK');

    const history = await historyOf(platform, tenant, loanId);
    expect(history.filter((entry) => entry.status === 'Active')).toHaveLength(1);
    expect(history.map((entry) => entry.comments).join('\n')).toContain(`IDN ${idn}`);
    expect(history.at(-1)).toMatchObject({ status: 'Active', actorRole: 'system' });

    // Paid out: neither a second payout nor the desk again.
    const again = await issueDisbursement(platform, tenant, loanId);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('invalid_loan_status');
    expect(again.body.error?.message).toContain('status Active');
    expect((await desk.payOut(idn, RECIPIENT)).body.error?.code).toBe('already_paid');
  }, 90_000);

  it('a payout not collected expires: the loan is back in Approved with the reason, and is issued again', async () => {
    const loanId = await approvedLoan(platform, tenant);
    const first = await issued(platform, tenant, loanId);
    const expired = await notified(platform, merchant, first.invoice, 'EXPIRED');
    expect(expired).toMatchObject({ delivery: 'delivered', attemptCount: 1 });
    expect(expired.attempts[0]?.reply).toBe('OK');

    const loan = await loanOf(platform, tenant, loanId);
    expect(loan.status).toBe('Approved');
    expect(loan.disbursement).toBeNull();
    const last = loan.statusHistory.at(-1);
    expect(last).toMatchObject({ status: 'Approved', by: 'system' });
    expect(last?.comments).toContain('expired uncollected');
    expect(last?.comments).toContain(first.invoice);
    // The expired code pays nothing any more.
    expect((await desk.payOut(first.idn, RECIPIENT)).body.error?.code).toBe('expired');

    // Issued again: a new payout (a new INVOICE and IDN), collected → Active.
    const second = await issued(platform, tenant, loanId, 2);
    expect(second.idn).not.toBe(first.idn);
    expect((await desk.payOut(second.idn, RECIPIENT)).status).toBe(201);
    await activeLoan(platform, tenant, loanId);
    await notified(platform, merchant, second.invoice, 'PAID');
    const history = await historyOf(platform, tenant, loanId);
    expect(history.filter((entry) => entry.status === 'Active')).toHaveLength(1);
    expect(history.filter((entry) => entry.comments?.includes('expired uncollected'))).toHaveLength(1);
  }, 90_000);
});

describe('refusals', () => {
  it('outside Approved (409 naming the status), another amount (400), no amount, other keys and tenants', async () => {
    const loanId = await approvedLoan(platform, tenant);

    const mismatch = await issueDisbursement(platform, tenant, loanId, '2999.00');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error?.code).toBe('disbursement_amount_mismatch');
    expect(mismatch.body.error?.fields?.[0]?.field).toBe('amount');
    const missing = await issueDisbursement(platform, tenant, loanId, null);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.error?.fields)).toContain('amount');
    expect(
      (await issueDisbursement(platform, tenant, loanId, '3000.00', tenant.keys.frontOffice)).status,
    ).toBe(403);
    const other = await createLendingTenant(platform);
    expect((await issueDisbursement(platform, tenant, loanId, '3000.00', other.keys.management)).status).toBe(
      404,
    );
    expect((await issueDisbursement(platform, tenant, '123456789')).status).toBe(404);
    expect(await statusOf(loanId)).toBe('Approved');

    // One payout at a time; while it is open the loan is neither cancelled nor registered as paid out.
    const { idn } = await issued(platform, tenant, loanId);
    const twice = await issueDisbursement(platform, tenant, loanId);
    expect(twice.status).toBe(409);
    expect(twice.body.error?.code).toBe('disbursement_in_progress');
    const registered = await lendingCall(platform, 'POST', '/Management/Loans/Disbursements', {
      key: tenant.keys.management,
      body: { loanId, amount: '3000.00' },
    });
    expect(registered.status).toBe(409);
    expect(registered.body.error?.code).toBe('disbursement_in_progress');
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
    await activeLoan(platform, tenant, loanId);
  }, 90_000);

  it('a loan not yet Approved, and a tenant that is no merchant of the gateway', async () => {
    const waiting = await lendingCall(platform, 'POST', '/Management/Loans', {
      key: tenant.keys.management,
      body: {
        customerId: (await approvedLoanCustomer()).customerId,
        productName: 'Personal 12',
        amount: '3000.00',
        term: 12,
      },
    });
    expect(waiting.status, JSON.stringify(waiting.body)).toBe(201);
    const notApproved = await issueDisbursement(platform, tenant, String(waiting.body.loanId));
    expect(notApproved.status).toBe(409);
    expect(notApproved.body.error?.code).toBe('invalid_loan_status');
    expect(notApproved.body.error?.message).toContain(`status ${String(waiting.body.status)}`);

    const noMerchant = await createLendingTenant(platform);
    await createCreditProduct(platform, noMerchant.tenantId);
    const loanId = await approvedLoan(platform, noMerchant);
    const refused = await issueDisbursement(platform, noMerchant, loanId);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('collect_merchant_not_configured');
    expect((await loanOf(platform, noMerchant, loanId)).status).toBe('Approved');
  }, 60_000);
});

/** A customer of the tenant (for management-created loans). */
async function approvedLoanCustomer() {
  const created = await lendingCall<{ customerId: string }>(
    platform,
    'POST',
    '/Management/Customers/Create',
    {
      key: tenant.keys.management,
      body: { login: `mgmt-${Date.now()}@example.com` },
    },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe('the notification receiver', () => {
  /** POSTs a notification to lending's receiver as the gateway would, signed with `signingKey`. */
  async function notify(
    lines: string[],
    options: { secret?: string; signingKey?: string; tenantId?: string } = {},
  ) {
    const encoded = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8').toString('base64');
    const signature = createSign('RSA-SHA256')
      .update(encoded, 'utf8')
      .sign(options.signingKey ?? (platform.env.COLLECT_SIGNING_KEY as string), 'base64');
    const response = await fetch(notifyUrlOf(platform, options.tenantId ?? tenant.tenantId), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ENCODED: encoded,
        CHECKSUM: checksumOf(options.secret ?? merchant.secret, encoded),
        SIGNATURE: signature,
      }),
    });
    return { status: response.status, body: await response.text() };
  }

  it('a forged notification (bad CHECKSUM or SIGNATURE) is refused and changes nothing', async () => {
    const loanId = await approvedLoan(platform, tenant);
    const { idn, invoice } = await issued(platform, tenant, loanId);
    const paidLine = `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270101120000:STAN=000000:BCODE=000000`;
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();

    expect(await notify([paidLine], { secret: 'not-the-merchant-secret-0123456789abcdef' })).toEqual({
      status: 200,
      body: 'ERR=Not valid CHECKSUM\n',
    });
    // The merchant secret alone is not enough: the gateway's signature is checked too.
    expect(await notify([paidLine], { signingKey: forger })).toEqual({
      status: 200,
      body: 'ERR=Not valid SIGNATURE\n',
    });
    const incomplete = await fetch(notifyUrlOf(platform, tenant.tenantId), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ENCODED: 'eA==' }),
    });
    expect(incomplete.status).toBe(400);
    expect(await incomplete.text()).toContain('ERR=MISSING_FIELD');
    expect((await notify([paidLine], { tenantId: 'ten_0000000000000000' })).status).toBe(404);

    await pause(QUIET_MS);
    expect(await statusOf(loanId)).toBe('Approved');
    expect((await desk.lookUp(idn)).body).toMatchObject({ status: 'PENDING' });

    // The real collection still goes through.
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
    await activeLoan(platform, tenant, loanId);
    await notified(platform, merchant, invoice, 'PAID');
  }, 60_000);

  it('a repeated notification changes nothing; an invoice that is not the tenant’s is answered NO', async () => {
    const loanId = await approvedLoan(platform, tenant);
    const { idn, invoice } = await issued(platform, tenant, loanId);
    expect((await desk.payOut(idn, RECIPIENT)).status).toBe(201);
    await notified(platform, merchant, invoice, 'PAID');
    const before = await historyOf(platform, tenant, loanId);
    expect(before.at(-1)?.status).toBe('Active');

    // The gateway delivers at least once: the same PAID again, and a late EXPIRED of the same invoice.
    const repeated = await notify([
      `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20270101120000:STAN=000000:BCODE=000000`,
      `INVOICE=${invoice}:STATUS=EXPIRED`,
      `INVOICE=${tenant.tenantId}-123456789-1:STATUS=PAID`,
      'INVOICE=100045:STATUS=PAID',
    ]);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toBe(
      [
        `INVOICE=${invoice}:STATUS=OK`,
        `INVOICE=${invoice}:STATUS=OK`,
        `INVOICE=${tenant.tenantId}-123456789-1:STATUS=NO`,
        'INVOICE=100045:STATUS=NO',
        '',
      ].join('\n'),
    );
    await pause(QUIET_MS);
    expect(await historyOf(platform, tenant, loanId)).toEqual(before);
    expect(await statusOf(loanId)).toBe('Active');
  }, 60_000);
});
