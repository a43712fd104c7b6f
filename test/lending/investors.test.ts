import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BidView, InvestmentView, LoanView, OpportunityView } from '../../application/lending/index.ts';
import { lendingInvestorBids } from '../../db/schema/lending-investors.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { approvedLoan } from './disbursement-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  createLendingTenant,
  type LendingAnswer,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Investors over HTTP (decision 0052), as a lender's site drives them: an investor registers, states
 * preferences, finds a loan among the Opportunities, bids, changes the bid; the loan is funded,
 * disbursed, the bids become investments, and each repayment is shared among them pro rata. Bids
 * arriving together are decided by the loan's workflow and never fund it beyond its amount.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

interface Investor {
  token: string;
  userId: string;
}

async function registerInvestor(details: Record<string, unknown> = {}): Promise<Investor> {
  const login = `investor-${randomBytes(5).toString('hex')}@example.com`;
  const answer = await lendingCall<{ userAuthToken: string; userId: string; role: string }>(
    platform,
    'POST',
    '/Investor/Register',
    {
      key: tenant.keys.frontOffice,
      query: { login, password: `pw-${randomBytes(9).toString('base64url')}` },
      body: details,
    },
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expect(answer.body.role).toBe('investor');
  return { token: answer.body.userAuthToken, userId: answer.body.userId };
}

const asInvestor = <T = Record<string, unknown>>(
  investor: Investor,
  method: string,
  path: string,
  request = {},
) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.frontOffice, token: investor.token, ...request });
const asManagement = <T = LoanView>(method: string, path: string, request = {}) =>
  lendingCall<T>(platform, method, path, { key: tenant.keys.management, ...request });

const submit = (investor: Investor, loanId: string, amount: string) =>
  asInvestor<BidView>(investor, 'POST', '/Investor/Bids/Submit', { body: { loanId, amount } });

async function opportunityOf(investor: Investor, loanId: string): Promise<OpportunityView | undefined> {
  const page = await asInvestor<{ items: OpportunityView[] }>(investor, 'GET', '/Investor/Opportunities', {
    query: { pageSize: 100 },
  });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return page.body.items.find((item) => item.loanId === loanId);
}

const fieldsOf = (answer: LendingAnswer<unknown>) =>
  answer.body.error?.fields?.map((field) => field.field) ?? [];
const today = () => new Date().toISOString().slice(0, 10);

/** The active bids' sum of a loan in the read model. */
async function fundedInReadModel(loanId: string): Promise<string> {
  const rows = await platform.db
    .select({ amount: lendingInvestorBids.amount })
    .from(lendingInvestorBids)
    .where(
      and(
        eq(lendingInvestorBids.tenantId, tenant.tenantId),
        eq(lendingInvestorBids.loanId, loanId),
        eq(lendingInvestorBids.status, 'active'),
      ),
    );
  return rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0)).toFixed(2);
}

describe('an investor journey over HTTP', () => {
  it('register → preferences → opportunity → bid → change → funded → disbursed → investment → a repayment shared', async () => {
    const ada = await registerInvestor({ firstName: 'Ada', lastName: 'Lovelace', country: 'GB' });
    const bob = await registerInvestor();

    const details = await asInvestor(ada, 'GET', '/Investor/PersonalDetails');
    expect(details.body).toEqual({ firstName: 'Ada', lastName: 'Lovelace', country: 'GB' });
    const changed = await asInvestor(ada, 'PUT', '/Investor/PersonalDetails', {
      body: { firstName: 'Ada', email: 'ada@example.com' },
    });
    expect(changed.status).toBe(200);
    expect((await asInvestor(ada, 'GET', '/Investor/PersonalDetails')).body).toEqual({
      firstName: 'Ada',
      email: 'ada@example.com',
    });

    const preferences = {
      minAmount: '1000.00',
      maxAmount: '5000.00',
      products: ['Personal 12'],
      maxBid: '2500.00',
    };
    expect((await asInvestor(ada, 'PUT', '/Investor/Preferences', { body: preferences })).status).toBe(200);
    expect((await asInvestor(ada, 'GET', '/Investor/Preferences')).body).toEqual(preferences);

    const loanId = await approvedLoan(platform, tenant);
    expect(await opportunityOf(ada, loanId)).toMatchObject({
      loanId,
      productName: 'Personal 12',
      amount: '3000.00',
      funded: '0.00',
      available: '3000.00',
      status: 'Approved',
    });
    // Bob's preferences leave the loan out.
    await asInvestor(bob, 'PUT', '/Investor/Preferences', { body: { maxAmount: '1000.00' } });
    expect(await opportunityOf(bob, loanId)).toBeUndefined();
    await asInvestor(bob, 'PUT', '/Investor/Preferences', { body: {} });

    const adaBid = await submit(ada, loanId, '1000.00');
    expect(adaBid.status, JSON.stringify(adaBid.body)).toBe(201);
    expect(adaBid.body).toMatchObject({ loanId, amount: '1000.00', status: 'active', investedOn: null });
    // The spec's key of a bid is `id` (decision 0086); no `bidId` beside it (investors came after 0.1.0).
    expect(adaBid.body.id).toMatch(/^bid_/);
    expect(adaBid.body).not.toHaveProperty('bidId');
    // Above Ada's own maxBid: refused naming the amount.
    const tooBig = await submit(ada, loanId, '2600.00');
    expect(tooBig.status).toBe(400);
    expect(fieldsOf(tooBig)).toEqual(['amount']);

    expect((await submit(bob, loanId, '2500.00')).body.error?.code).toBe('funding_exceeds_amount');
    const bobBid = await submit(bob, loanId, '2000.00');
    expect(bobBid.status).toBe(201);
    // Covered: no longer an opportunity.
    expect(await opportunityOf(ada, loanId)).toBeUndefined();

    // Ada's change: up is refused (covered), down frees the difference, back up covers it again.
    const adaPath = `/Investor/Bids/${adaBid.body.id}`;
    const up = await asInvestor(ada, 'PUT', adaPath, { body: { amount: '1200.00' } });
    expect(up.status).toBe(409);
    expect(up.body.error?.code).toBe('funding_exceeds_amount');
    expect((await asInvestor<BidView>(ada, 'PUT', adaPath, { body: { amount: '800.00' } })).body.amount).toBe(
      '800.00',
    );
    expect(await opportunityOf(ada, loanId)).toMatchObject({ funded: '2800.00', available: '200.00' });
    expect((await asInvestor<BidView>(ada, 'PUT', adaPath, { body: { amount: '1000.00' } })).status).toBe(
      200,
    );
    expect(await fundedInReadModel(loanId)).toBe('3000.00');

    // Another investor's bid is not found, whatever is asked of it.
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await asInvestor(
        bob,
        method,
        adaPath,
        method === 'PUT' ? { body: { amount: '1.00' } } : {},
      );
      expect(answer.status, method).toBe(404);
    }

    // Disbursed: the bids become the loan's investments.
    const disbursed = await asManagement('POST', '/Management/Loans/Disbursements', {
      body: { loanId, amount: '3000.00', date: today() },
    });
    expect(disbursed.status, JSON.stringify(disbursed.body)).toBe(200);
    expect(disbursed.body.status).toBe('Active');
    expect((await asInvestor<BidView>(ada, 'GET', adaPath)).body).toMatchObject({
      status: 'invested',
      investedOn: today(),
    });
    expect((await submit(ada, loanId, '1.00')).body.error?.code).toBe('loan_not_open_for_funding');
    const investments = await asInvestor<{ items: InvestmentView[] }>(
      ada,
      'GET',
      '/Investor/ActiveInvestments',
    );
    // A list answers `{ items }`; an investment's key is `id` (its bid's), as the spec names it.
    expect(investments.body).toEqual({
      items: [expect.not.objectContaining({ investmentId: expect.anything() })],
    });
    expect(investments.body.items).toEqual([
      expect.objectContaining({
        id: adaBid.body.id,
        loanId,
        loanStatus: 'Active',
        amount: '1000.00',
        loanAmount: '3000.00',
        repaid: '0.00',
      }),
    ]);

    // A repayment of 100.00: Ada's third is 33.333…, Bob's two thirds 66.666…: the cent left goes to Bob.
    const repaid = await asManagement('POST', '/Management/Loans/Repayments', {
      body: { loanId, amount: '100.00' },
    });
    expect(repaid.status, JSON.stringify(repaid.body)).toBe(201);
    const adaInvestment = await asInvestor<InvestmentView>(
      ada,
      'GET',
      `/Investor/ActiveInvestments/${adaBid.body.id}`,
    );
    expect(adaInvestment.status).toBe(200);
    expect(adaInvestment.body).toMatchObject({ id: adaBid.body.id, repaid: '33.33' });
    expect(adaInvestment.body.shares).toEqual([
      expect.objectContaining({ repaymentAmount: '100.00', amount: '33.33' }),
    ]);
    const bobInvestment = await asInvestor<InvestmentView>(
      bob,
      'GET',
      `/Investor/ActiveInvestments/${bobBid.body.id}`,
    );
    expect(bobInvestment.body).toMatchObject({ repaid: '66.67' });
    expect((await asInvestor(bob, 'GET', `/Investor/ActiveInvestments/${adaBid.body.id}`)).status).toBe(404);
  });
});

describe('funding decided by the loan workflow', () => {
  it('50 concurrent bids never fund a loan beyond its amount; a withdrawn bid frees its amount', async () => {
    const loanId = await approvedLoan(platform, tenant);
    const investors = await Promise.all(Array.from({ length: 10 }, () => registerInvestor()));
    // 50 bids of 150.00 on 3000.00: exactly 20 fit.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        submit(investors[i % investors.length] as Investor, loanId, '150.00'),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(accepted).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body.error?.code).toBe('funding_exceeds_amount');
    }
    expect(await fundedInReadModel(loanId)).toBe('3000.00');

    // A withdrawn bid frees its amount: one more bid of that amount fits, and no more.
    const first = accepted[0]?.body as BidView;
    const owner = investors[
      answers.indexOf(accepted[0] as (typeof answers)[number]) % investors.length
    ] as Investor;
    const withdrawn = await asInvestor<BidView>(owner, 'DELETE', `/Investor/Bids/${first.id}`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.status).toBe('withdrawn');
    expect(await fundedInReadModel(loanId)).toBe('2850.00');
    expect((await asInvestor(owner, 'DELETE', `/Investor/Bids/${first.id}`)).body.error?.code).toBe(
      'bid_closed',
    );
    const [again, beyond] = await Promise.all([
      submit(investors[1] as Investor, loanId, '150.00'),
      submit(investors[2] as Investor, loanId, '150.00'),
    ]);
    expect([again.status, beyond.status].sort()).toEqual([201, 409]);
    expect(await fundedInReadModel(loanId)).toBe('3000.00');
    const listed = await asInvestor<{ items: BidView[] }>(owner, 'GET', '/Investor/Bids');
    expect(listed.body.items.find((held) => held.id === first.id)?.status).toBe('withdrawn');
  });
});

describe('investor credentials and validation', () => {
  it('a customer’s token does not act as an investor, nor an investor’s as a customer', async () => {
    const customer = await registerCustomer(platform, tenant);
    const investor = await registerInvestor();
    const asCustomer = await lendingCall(platform, 'GET', '/Investor/Bids', {
      key: tenant.keys.frontOffice,
      token: customer.token,
    });
    expect(asCustomer.status).toBe(403);
    expect(asCustomer.body.error?.code).toBe('not_an_investor');
    const onCustomer = await asInvestor(investor, 'GET', '/Customer/Details');
    expect(onCustomer.status).toBe(403);
    expect(onCustomer.body.error?.code).toBe('not_a_customer');

    // User/Login signs an investor in as well: its token acts as the investor.
    const login = `investor-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'a-long-investor-password';
    const key = tenant.keys.frontOffice;
    expect(
      (await lendingCall(platform, 'POST', '/Investor/Register', { key, query: { login, password } })).status,
    ).toBe(201);
    const taken = await lendingCall(platform, 'POST', '/Investor/Register', {
      key,
      query: { login, password },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error?.code).toBe('login_taken');
    const loggedIn = await lendingCall<{ userAuthToken: string; role: string }>(
      platform,
      'POST',
      '/User/Login',
      {
        key,
        query: { login, password },
      },
    );
    expect(loggedIn.body.role).toBe('investor');
    const bids = await lendingCall(platform, 'GET', '/Investor/Bids', {
      key,
      token: loggedIn.body.userAuthToken,
    });
    expect(bids.status).toBe(200);
    expect(bids.body).toEqual({ items: [] });
  });

  it('names the offending field', async () => {
    const investor = await registerInvestor();
    const cases: [LendingAnswer<unknown>, string][] = [
      [await submit(investor, '123', 'abc'), 'amount'],
      [await submit(investor, '123', '-5'), 'amount'],
      [await asInvestor(investor, 'POST', '/Investor/Bids/Submit', { body: { amount: '10.00' } }), 'loanId'],
      [
        await asInvestor(investor, 'PUT', '/Investor/Preferences', { body: { minTerm: 12, maxTerm: 6 } }),
        'maxTerm',
      ],
      [await asInvestor(investor, 'PUT', '/Investor/Preferences', { body: { maxBid: 'lots' } }), 'maxBid'],
      [
        await asInvestor(investor, 'PUT', '/Investor/PersonalDetails', { body: { email: 'not-mail' } }),
        'email',
      ],
      [
        await lendingCall(platform, 'POST', '/Investor/Register', {
          key: tenant.keys.frontOffice,
          query: { login: 'someone@example.com' },
        }),
        'password',
      ],
    ];
    for (const [answer, field] of cases) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(fieldsOf(answer), JSON.stringify(answer.body)).toContain(field);
    }
    expect((await submit(investor, '999999999', '10.00')).status).toBe(404);
  });
});
