import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { docTypeIds } from '../../domain/lending/loan-documents.ts';
import { type CountedApi, type RoundTrips, startCountedApi } from '../support/counted-api.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { codeOfAcceptance, requestSigningCode } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingRequest,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * What each request of a loan's journey from application to Active costs the API (issue 24, decision
 * 0075): the SQL statements it sends and its calls to Temporal, counted on an API process of its own
 * (test/support/counted-api.ts) while the platform's worker moves the loan. The figures are pinned: a
 * change that adds a round trip to one of these requests fails here, and says which (set
 * ROUND_TRIPS_VERBOSE=1 to print every statement); one that saves a round trip updates them here and in
 * the decision record.
 */

/** SQL statements and Temporal calls per request of the journey, as counted in decision 0075. */
const PINNED: Record<string, { sql: number; temporal: number }> = {
  // The product, the customer, the tenant's vendor settings; the Update-with-Start; the loan as started.
  'Customer/Loans/Create': { sql: 4, temporal: 1 },
  // The loan with its history, point of sale and servicing: one statement.
  'GET Customer/Loans/{id} (before Process)': { sql: 1, temporal: 0 },
  // The loan, the customer (the bureau's applicant); the Update; the loan as moved.
  'Customer/Loans/{id}/Process': { sql: 3, temporal: 1 },
  'GET Customer/Loans/{id} (polling for the decision)': { sql: 1, temporal: 0 },
  // The loan; the Update; the loan as moved; the documents' decisions, product and the customer's phone;
  // a signing-code workflow started and waited for per document.
  'Customer/Loans/{id}/AcceptLoanOffer': { sql: 5, temporal: 5 },
  // The loan, the documents (acceptance and decisions, product), the phone, the send's record; the
  // signing-code workflow started and waited for.
  'Customer/Loans/{id}/ResendSmsCode': { sql: 5, temporal: 2 },
  // The loan, the documents (2), the code; its attempt counted; the code used and the signature recorded
  // in one transaction (begin, update, insert, commit); the hint to the loan's workflow that a signature
  // waits to be announced (decision 0088, lending events).
  'Customer/Loans/{id}/SignDocument (first)': { sql: 9, temporal: 1 },
  'Customer/Loans/{id}/SignDocument (last)': { sql: 9, temporal: 1 },
  'GET Management/Loans/{id}': { sql: 1, temporal: 0 },
  // The loan, the documents (2; their product is the document groups' too); the Update; the loan as moved.
  'Management/Loans/{id}/Approve': { sql: 4, temporal: 1 },
  // The loan; the Update; the loan as moved.
  'Management/Loans/Disbursements': { sql: 2, temporal: 1 },
  'GET Customer/Loans/{id} (Active)': { sql: 1, temporal: 0 },
};

let platform: TestPlatform;
let counted: CountedApi;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  counted = await startCountedApi(platform);
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  // Another customer's loan first: a loan's reads must find its own history, not the tenant's first.
  const other = await registerCustomer(platform, tenant, completeDetails());
  const applied = await lendingCall(platform, 'POST', '/Customer/Loans/Create', {
    key: tenant.keys.frontOffice,
    token: other.token,
    body: { productName: 'Personal 12', amount: '1000.00', term: 6 },
  });
  expect(applied.status).toBe(201);
});
afterAll(async () => {
  await counted?.stop();
  await platform?.stop();
});

/** The round trips of each request, by the journey's step name. */
const figures = new Map<string, RoundTrips>();

it('takes a loan from application to Active with the round trips pinned per request', async () => {
  const customer = await registerCustomer(platform, tenant, completeDetails());
  const api = { apiUrl: counted.apiUrl };
  const call = async (step: string, method: string, path: string, request: LendingRequest) => {
    const { answer, trips } = await counted.roundTripsOf(() =>
      lendingCall<LoanView>(api, method, path, request),
    );
    expect(answer.status, `${step}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    figures.set(step, trips);
    return answer.body;
  };
  const asCustomer = (step: string, method: string, path: string, request: LendingRequest = {}) =>
    call(step, method, path, { key: tenant.keys.frontOffice, token: customer.token, ...request });
  const asManagement = (step: string, method: string, path: string, request: LendingRequest = {}) =>
    call(step, method, path, { key: tenant.keys.management, ...request });

  // Credentials are cached once the process listens for their changes (decision 0065): the journey's
  // requests are counted with both keys and the user token cached, as on a running site.
  for (let round = 0; round < 2; round += 1) {
    await asCustomer('warm-up (customer)', 'GET', '/Customer/Details');
    await asManagement('warm-up (management)', 'GET', '/Management/BranchOffices');
  }

  const created = await asCustomer('Customer/Loans/Create', 'POST', '/Customer/Loans/Create', {
    body: { productName: 'Personal 12', amount: '3000.00', term: 12 },
  });
  expect(created).toMatchObject({ status: 'Origination', amount: '3000.00' });
  const loanId = created.loanId;
  const read = (step: string) => asCustomer(step, 'GET', `/Customer/Loans/${loanId}`);

  expect(await read('GET Customer/Loans/{id} (before Process)')).toEqual(created);
  const processed = await asCustomer(
    'Customer/Loans/{id}/Process',
    'POST',
    `/Customer/Loans/${loanId}/Process`,
  );
  expect(processed.status).toBe('Origination');
  const decided = await eventually(async () => {
    const loan = await read('GET Customer/Loans/{id} (polling for the decision)');
    return loan.status === 'Origination' ? undefined : loan;
  });
  expect(decided.status).toBe('Offer confirmation');

  const accepted = await asCustomer(
    'Customer/Loans/{id}/AcceptLoanOffer',
    'POST',
    `/Customer/Loans/${loanId}/AcceptLoanOffer`,
  );
  expect(accepted.status).toBe('Waiting for approval');

  const [first, second] = docTypeIds;
  if (!first || !second) throw new Error('two system documents expected');
  await codeOfAcceptance(platform, loanId, first);
  const resent = await counted.roundTripsOf(() =>
    requestSigningCode({ ...platform, apiUrl: counted.apiUrl }, tenant, customer.token, loanId, first),
  );
  figures.set('Customer/Loans/{id}/ResendSmsCode', resent.trips);
  await asCustomer(
    'Customer/Loans/{id}/SignDocument (first)',
    'POST',
    `/Customer/Loans/${loanId}/SignDocument`,
    {
      query: { docTypeId: first, code: resent.answer },
    },
  );
  await asCustomer(
    'Customer/Loans/{id}/SignDocument (last)',
    'POST',
    `/Customer/Loans/${loanId}/SignDocument`,
    {
      query: { docTypeId: second, code: await codeOfAcceptance(platform, loanId, second) },
    },
  );

  expect((await asManagement('GET Management/Loans/{id}', 'GET', `/Management/Loans/${loanId}`)).status).toBe(
    'Waiting for approval',
  );
  const approved = await asManagement(
    'Management/Loans/{id}/Approve',
    'POST',
    `/Management/Loans/${loanId}/Approve`,
  );
  expect(approved.status).toBe('Approved');
  const active = await asManagement(
    'Management/Loans/Disbursements',
    'POST',
    '/Management/Loans/Disbursements',
    {
      body: { loanId, amount: '3000.00' },
    },
  );
  expect(active.status).toBe('Active');
  expect(await read('GET Customer/Loans/{id} (Active)')).toMatchObject({ status: 'Active' });

  const journey = [...figures].filter(([step]) => !step.startsWith('warm-up'));
  if (process.env.ROUND_TRIPS_VERBOSE) console.log(JSON.stringify(journey, null, 1));
  const counts = Object.fromEntries(
    journey.map(([step, trips]) => [step, { sql: trips.sql.length, temporal: trips.temporal.length }]),
  );
  // The round trips of each request whose figures moved, one a line, to say what changed.
  const made = journey
    .filter(
      ([step, trips]) =>
        PINNED[step]?.sql !== trips.sql.length || PINNED[step]?.temporal !== trips.temporal.length,
    )
    .map(([step, trips]) => `${step}:\n  ${[...trips.sql, ...trips.temporal].join('\n  ')}`);
  expect(counts, made.join('\n')).toEqual(PINNED);
});
