import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { signLoanDocuments } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  decidedLoan,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Loans end to end over HTTP, as an integrator drives them: a customer registers, applies, is decided by
 * the sandbox credit bureau (its answer follows the customer's last name: sandbox/lending/bureau.ts),
 * accepts the offer, management approves and registers the disbursement. Wrong-status operations are
 * 409 `invalid_loan_status` naming the status; another customer's loan is 404.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
const SECURED = 'Car loan';

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  await createCreditProduct(platform, tenant.tenantId, {
    name: SECURED,
    secured: true,
    promoCodes: ['CAR-26'],
  });
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;

const asCustomer = <T = LoanView>(customer: Customer, method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.frontOffice, token: customer.token, ...request });
const asManagement = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });

async function applyFor(customer: Customer, terms: Record<string, unknown> = {}) {
  const created = await asCustomer(customer, 'POST', '/Customer/Loans/Create', {
    body: { productName: 'Personal 12', amount: '5000', term: 12, ...terms },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const process = (customer: Customer, loanId: string) =>
  asCustomer(customer, 'POST', `/Customer/Loans/${loanId}/Process`, { query: { comments: 'please' } });
/** Process, then the loan once the bureau has decided (Process answers at once; the customer polls). */
const processDecided = async (customer: Customer, loanId: string) =>
  decidedLoan(await process(customer, loanId), () =>
    asCustomer(customer, 'GET', `/Customer/Loans/${loanId}`),
  );

function expectInvalidStatus(
  answer: { status: number; body: { error?: { code: string; message: string } } },
  status: string,
) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(409);
  expect(answer.body.error?.code).toBe('invalid_loan_status');
  expect(answer.body.error?.message).toContain(`status ${status}`);
}

describe('a loan from application to Active', () => {
  it('create → process (bureau approves) → offer → accept → approve → disbursement → Active', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const loan = await applyFor(customer);
    expect(loan).toMatchObject({
      status: 'Origination',
      amount: '5000.00',
      term: 12,
      productName: 'Personal 12',
      secured: false,
    });
    expect(loan.loanId).toMatch(/^\d{9}$/);

    // Operations of later statuses are refused, naming the status.
    expectInvalidStatus(
      await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/AcceptLoanOffer`),
      'Origination',
    );
    expectInvalidStatus(
      await asCustomer(customer, 'GET', `/Customer/Loans/${loan.loanId}/LoanOffer`),
      'Origination',
    );
    expectInvalidStatus(
      await asManagement('POST', `/Management/Loans/${loan.loanId}/Approve`),
      'Origination',
    );
    expectInvalidStatus(
      await asManagement('POST', '/Management/Loans/Disbursements', {
        body: { loanId: loan.loanId, amount: '5000.00' },
      }),
      'Origination',
    );

    const processed = await processDecided(customer, loan.loanId);
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(processed.body.status).toBe('Offer confirmation');
    expect(processed.body.offers).toEqual([
      { offerId: `${loan.loanId}-1`, productName: 'Personal 12', amount: '5000.00', term: 12 },
    ]);
    expectInvalidStatus(await process(customer, loan.loanId), 'Offer confirmation');
    // The tenant's multiple-offers feature is off.
    const offers = await asCustomer(customer, 'GET', `/Customer/Loans/${loan.loanId}/LoanOffers`);
    expect(offers.status).toBe(409);
    expect(offers.body.error?.code).toBe('multiple_offers_disabled');

    const offer = await asCustomer<{ offerId: string; schedule: { instalments: unknown[] } | null }>(
      customer,
      'GET',
      `/Customer/Loans/${loan.loanId}/LoanOffer`,
    );
    expect(offer.status).toBe(200);
    expect(offer.body.offerId).toBe(`${loan.loanId}-1`);
    expect(offer.body.schedule?.instalments).toHaveLength(12);

    const accepted = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/AcceptLoanOffer`, {
      query: { offerId: `${loan.loanId}-1` },
    });
    expect(accepted.body).toMatchObject({
      status: 'Waiting for approval',
      acceptedOfferId: `${loan.loanId}-1`,
    });

    // Approved once the customer signed the system documents with the SMS codes (decision 0040).
    await signLoanDocuments(platform, tenant, customer.token, loan.loanId);
    const approved = await asManagement('POST', `/Management/Loans/${loan.loanId}/Approve`, {
      query: { comments: 'looks good' },
    });
    expect(approved.body.status).toBe('Approved');
    expect(approved.body.decision).toMatchObject({ outcome: 'approve', score: 760 });

    const wrongAmount = await asManagement('POST', '/Management/Loans/Disbursements', {
      body: { loanId: loan.loanId, amount: '4999.99' },
    });
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.body.error?.code).toBe('disbursement_amount_mismatch');
    expect(wrongAmount.body.error?.fields?.[0]?.field).toBe('amount');

    const tooLate = await asManagement('POST', '/Management/Loans/Disbursements', {
      body: { loanId: loan.loanId, amount: '5000', date: '2099-01-01' },
    });
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.error?.fields?.map((field) => field.field)).toEqual(['date']);

    const today = new Date().toISOString().slice(0, 10);
    const disbursed = await asManagement('POST', '/Management/Loans/Disbursements', {
      // Today: a disbursement months ago would make the loan Past Due by now (decision 0043).
      body: { loanId: loan.loanId, amount: '5000', date: today },
    });
    expect(disbursed.status, JSON.stringify(disbursed.body)).toBe(200);
    expect(disbursed.body).toMatchObject({
      status: 'Active',
      disbursement: { amount: '5000.00', date: today },
    });
    expect(disbursed.body.statusHistory.map((entry) => [entry.status, entry.by, entry.comments])).toEqual([
      ['Origination', 'customer', null],
      ['Origination', 'customer', 'please'],
      ['Offer confirmation', 'system', 'credit bureau: approve'],
      ['Waiting for approval', 'customer', `offer ${loan.loanId}-1 accepted`],
      ['Approved', 'management', 'looks good'],
      ['Active', 'management', `disbursement of 5000.00 on ${today}`],
    ]);

    // The customer sees it, without the bureau's decision.
    const seen = await asCustomer(customer, 'GET', `/Customer/Loans/${loan.loanId}`);
    expect(seen.body).toMatchObject({ status: 'Active', decision: null });
    const list = await asCustomer<{ loans: LoanView[] }>(customer, 'GET', '/Customer/Loans');
    expect(list.body.loans.map((entry) => entry.loanId)).toEqual([loan.loanId]);
    const summary = await asCustomer<Record<string, unknown>>(customer, 'GET', '/Customer/AccountSummary');
    expect(summary.body).toMatchObject({
      openLoans: 1,
      closedLoans: 0,
      disbursedPrincipal: [{ currency: 'EUR', amount: '5000.00' }],
    });

    // Servicing options of an Active loan.
    const allowed = () =>
      asCustomer<{ allowed: boolean }>(customer, 'GET', `/Customer/Loans/${loan.loanId}/Rollover/Allowed`);
    expect((await allowed()).body.allowed).toBe(true);
    expect(
      (await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Rollover`)).body.rolloverRequested,
    ).toBe(true);
    expect((await allowed()).body.allowed).toBe(false);
    const again = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Rollover`);
    expect(again.body.error?.code).toBe('rollover_already_requested');
    expect(
      (await asCustomer(customer, 'DELETE', `/Customer/Loans/${loan.loanId}/Rollover`)).body
        .rolloverRequested,
    ).toBe(false);
    const charged = await asManagement('POST', `/Management/Loans/${loan.loanId}/AutochargeEnable`, {
      query: { comment: 'asked by phone' },
    });
    expect(charged.body.autocharge).toEqual({ enabled: true, comment: 'asked by phone' });
    expectInvalidStatus(
      await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Cancel`, {
        query: { reasonId: 'x' },
      }),
      'Active',
    );
  }, 60_000);
});

describe('the automatic decision', () => {
  it('the bureau declines: Rejected, closed, and left out of the active loans', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails({ lastName: 'Decline' }));
    const loan = await applyFor(customer);
    const decided = await processDecided(customer, loan.loanId);
    expect(decided.body.status).toBe('Rejected');
    expectInvalidStatus(
      await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/AcceptLoanOffer`),
      'Rejected',
    );
    expectInvalidStatus(await process(customer, loan.loanId), 'Rejected');
    const list = await asCustomer<{ loans: LoanView[] }>(customer, 'GET', '/Customer/Loans');
    expect(list.body.loans).toEqual([]);
    expect((await asManagement('GET', `/Management/Loans/${loan.loanId}`)).body.decision).toMatchObject({
      outcome: 'decline',
    });
  });

  it('the bureau refers, or does not answer: Waiting for approval (referred), then approved into an offer', async () => {
    // Why the bureau decided nothing, as the loan officer reads it (the activity failure's cause, not
    // "Activity task failed"); the tests' bureau timeout is 1 s, 2 attempts.
    const unavailable: Record<string, string> = {
      Slow: 'the credit bureau did not answer within 1 s (asked 2 times)',
      Outage:
        'the credit bureau answered 503 Service Unavailable: the bureau is down (sandbox test customer Outage) (asked 2 times)',
    };
    for (const lastName of ['Refer', 'Slow', 'Outage']) {
      const customer = await registerCustomer(platform, tenant, completeDetails({ lastName }));
      const loan = await applyFor(customer);
      const decided = await processDecided(customer, loan.loanId);
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      expect(decided.body.status).toBe('Waiting for approval');
      const managed = await asManagement('GET', `/Management/Loans/${loan.loanId}`);
      expect(managed.body.decision?.outcome).toBe(lastName === 'Refer' ? 'refer' : 'unavailable');
      if (lastName !== 'Refer') expect(managed.body.decision?.reasons).toEqual([unavailable[lastName]]);
      const approved = await asManagement('POST', `/Management/Loans/${loan.loanId}/Approve`);
      expect(approved.body.status).toBe('Offer confirmation');
      expect(approved.body.offers).toHaveLength(1);
    }
    // The slow customer's check was tried as often as configured (LENDING_BUREAU_ATTEMPTS=2).
    const slow = platform.sandbox.bureau.requests.filter((request) => request.lastName === 'Slow');
    expect(slow.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('a secured loan goes to Collateral, and is decided once it has a collateral', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const loan = await applyFor(customer, { productName: 'CAR-26' });
    expect(loan).toMatchObject({ productName: SECURED, promoCode: 'CAR-26', secured: true });
    expect((await process(customer, loan.loanId)).body.status).toBe('Collateral');
    const early = await process(customer, loan.loanId);
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe('collateral_required');
    const added = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Collaterals`, {
      body: { kind: 'vehicle', description: 'Toyota Corolla 2019', value: '9500.00' },
    });
    expect(added.body.collaterals).toEqual([
      { collateralId: '1', kind: 'vehicle', description: 'Toyota Corolla 2019', value: '9500.00' },
    ]);
    const updated = await asCustomer(customer, 'PUT', `/Customer/Loans/${loan.loanId}/Collaterals`, {
      body: { collateralId: '1', kind: 'vehicle', description: 'Toyota Corolla 2020', value: '9900.00' },
    });
    expect(updated.body.collaterals[0]?.value).toBe('9900.00');
    const missing = await asCustomer(customer, 'DELETE', `/Customer/Loans/${loan.loanId}/Collaterals/7`);
    expect(missing.status).toBe(404);
    expect((await processDecided(customer, loan.loanId)).body.status).toBe('Offer confirmation');
    // A change of what the offer rested on: Reprocessing, the offer withdrawn.
    const coApplicant = await asCustomer(customer, 'PUT', `/Customer/Loans/${loan.loanId}/CoApplicant`, {
      body: { firstName: 'John', lastName: 'Doe', relationship: 'spouse' },
    });
    expect(coApplicant.body).toMatchObject({ status: 'Reprocessing', offers: [] });
    const read = await asCustomer<{ coApplicant: unknown }>(
      customer,
      'GET',
      `/Customer/Loans/${loan.loanId}/CoApplicant`,
    );
    expect(read.body.coApplicant).toEqual({ firstName: 'John', lastName: 'Doe', relationship: 'spouse' });
  }, 60_000);
});

describe('the application', () => {
  it('Pre-Origination until the customer’s details are complete; then Origination', async () => {
    const customer = await registerCustomer(platform, tenant, { firstName: 'Jane' });
    const loan = await applyFor(customer);
    expect(loan.status).toBe('Pre-Origination');
    expectInvalidStatus(await process(customer, loan.loanId), 'Pre-Origination');
    const details = await asCustomer(customer, 'PUT', '/Customer/Details', { body: completeDetails() });
    expect(details.status).toBe(200);
    await eventually(
      async () => {
        const seen = await asCustomer(customer, 'GET', `/Customer/Loans/${loan.loanId}`);
        return seen.body.status === 'Origination' ? true : undefined;
      },
      10_000,
      'the loan to leave Pre-Origination',
    );
  });

  it('new terms: refused outside the product’s bounds (400 names the field), accepted within', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const loan = await applyFor(customer);
    const tooMuch = await asCustomer(customer, 'PUT', `/Customer/Loans/${loan.loanId}/LoanDetails`, {
      body: { productName: 'Personal 12', amount: '99999', term: 12 },
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error?.fields?.[0]?.field).toBe('amount');
    const changed = await asCustomer(customer, 'PUT', `/Customer/Loans/${loan.loanId}/LoanDetails`, {
      body: { productName: 'Personal 12', amount: '6000', term: 24 },
    });
    expect(changed.body).toMatchObject({ status: 'Origination', amount: '6000.00', term: 24 });
  });

  it('Cancel needs a front-office reason; the loan is then Cancelled', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const loan = await applyFor(customer);
    const noReason = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Cancel`);
    expect(noReason.status).toBe(400);
    expect(noReason.body.error?.fields?.[0]?.field).toBe('reasonId');
    const unknown = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Cancel`, {
      query: { reasonId: 'crs_nope' },
    });
    expect(unknown.status).toBe(400);
    const reasons = await asCustomer<{ items: { reasonId: string }[] }>(
      customer,
      'GET',
      '/Dictionary/CancellationReasons',
    );
    const reasonId = reasons.body.items[0]?.reasonId ?? '';
    const cancelled = await asCustomer(customer, 'POST', `/Customer/Loans/${loan.loanId}/Cancel`, {
      query: { reasonId, comments: 'changed my mind' },
    });
    expect(cancelled.body.status).toBe('Cancelled');
    expect(cancelled.body.statusHistory.at(-1)).toMatchObject({
      status: 'Cancelled',
      reasonId,
      comments: 'changed my mind',
    });
    expectInvalidStatus(await process(customer, loan.loanId), 'Cancelled');
  });

  it('another customer’s loan is 404, and so is any loan with another tenant’s key', async () => {
    const owner = await registerCustomer(platform, tenant, completeDetails());
    const other = await registerCustomer(platform, tenant, completeDetails());
    const loan = await applyFor(owner);
    for (const [method, path] of [
      ['GET', `/Customer/Loans/${loan.loanId}`],
      ['POST', `/Customer/Loans/${loan.loanId}/Process`],
      ['POST', `/Customer/Loans/${loan.loanId}/DeclineLoanOffer`],
      ['GET', `/Customer/Loans/${loan.loanId}/CoApplicant`],
    ] as const) {
      const answer = await asCustomer(other, method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await asCustomer<{ loans: unknown[] }>(other, 'GET', '/Customer/Loans')).body.loans).toEqual([]);
    const elsewhere = await createLendingTenant(platform);
    const foreign = await lendingCall(platform, 'GET', `/Management/Loans/${loan.loanId}`, {
      key: elsewhere.keys.management,
    });
    expect(foreign.status).toBe(404);
    const foreignApprove = await lendingCall(platform, 'POST', `/Management/Loans/${loan.loanId}/Approve`, {
      key: elsewhere.keys.management,
    });
    expect(foreignApprove.status).toBe(404);
    expect((await asCustomer(owner, 'GET', `/Customer/Loans/${loan.loanId}`)).body.status).toBe(
      'Origination',
    );
  });
});

describe('management create', () => {
  it('without a disbursement like the customer’s; with one: Active, Past Due or Repaid by the schedule and today', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const create = (body: Record<string, unknown>, path = '/Management/Loans') =>
      asManagement('POST', path, {
        body: {
          customerId: customer.customerId,
          productName: 'Personal 12',
          amount: '1200',
          term: 12,
          ...body,
        },
      });
    expect((await create({})).body.status).toBe('Origination');
    const today = new Date().toISOString().slice(0, 10);
    const active = await create({ disbursements: [{ amount: '1200.00', date: today }] });
    expect(active.status, JSON.stringify(active.body)).toBe(201);
    expect(active.body.status).toBe('Active');
    const pastDue = await create({ disbursements: [{ amount: '1200', date: '2024-01-15' }] });
    expect(pastDue.body.status).toBe('Past Due');
    const fieldOf = (answer: { body: { error?: { fields?: { field: string }[] } } }) =>
      answer.body.error?.fields?.map((field) => field.field);
    const migrated = (repaidAmount: string) =>
      create(
        { disbursements: [{ amount: '1200', date: '2024-01-15' }], repaidAmount },
        '/Migration/Loans/Create',
      );
    // More than the schedule asks for, or sub-cent: refused, neither capped nor rounded.
    const tooMuch = await migrated('5000');
    expect(tooMuch.status).toBe(400);
    expect(fieldOf(tooMuch)).toEqual(['repaidAmount']);
    const subCent = await migrated('100.005');
    expect(subCent.status).toBe(400);
    expect(fieldOf(subCent)).toEqual(['repaidAmount']);
    const payable = (pastDue.body.servicing?.instalments ?? []).reduce(
      (sum, row) => sum.plus(row.total),
      new Decimal(0),
    );
    const repaid = await migrated(payable.toFixed(2));
    expect(repaid.status, JSON.stringify(repaid.body)).toBe(201);
    expect(repaid.body.status).toBe('Repaid');
    const future = await create({ disbursements: [{ amount: '1200', date: '2099-01-01' }] });
    expect(future.status).toBe(400);
    expect(fieldOf(future)).toEqual(['disbursements.0.date']);
    const mismatch = await create({ disbursements: [{ amount: '1000', date: today }] });
    expect(mismatch.status).toBe(400);
    const unknown = await asManagement('POST', '/Management/Loans', {
      body: { customerId: 'cus_nope', productName: 'Personal 12', amount: '1200', term: 12 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.fields?.[0]?.field).toBe('customerId');
  });
});
