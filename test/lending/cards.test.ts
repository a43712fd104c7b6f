import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { lendingCards } from '../../db/schema/lending-payment-options.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { submitCard } from '../collect/card-client.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  type CollectMerchant,
  gatewayNotifications,
  loanOf,
  makeMerchant,
  notified,
  QUIET_MS,
} from './disbursement-support.ts';
import { createCreditProduct, startDateForFirstDueDate } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  historyOf,
  type LendingTestTenant,
  lendingCall,
  pause,
  registerCustomer,
} from './support.ts';

/**
 * Cards as payment methods and card repayments through the collection gateway, end to end over HTTP
 * (decision 0045): a card saved on the gateway's card page from the form lending answers (no card
 * number ever reaches lending), listed, changed, made default and deleted (forgotten at the gateway);
 * SubmitRepayment charged to the saved card, paid or declined; auto-charge on a due date.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
let merchant: CollectMerchant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  merchant = await makeMerchant(platform, tenant);
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;
interface Card {
  cardId: string;
  status: string;
  isDefault: boolean;
  nickname: string | null;
  brand: string | null;
  last4: string | null;
  expiryMonth: number | null;
  expiryYear: number | null;
  reason: string | null;
}
interface NewCard extends Card {
  cardPage: { action: string; method: string; fields: Record<string, string> };
}
interface Submission {
  submissionId: string;
  status: string;
  mode: string;
  amount: string;
  invoice: string;
  reference: string | null;
  paymentMethodId: string | null;
  reason: string | null;
  repaymentId: string | null;
}

const today = () => new Date().toISOString().slice(0, 10);
const asCustomer = <T = Record<string, unknown>>(
  customer: Customer,
  method: string,
  path: string,
  request: { body?: unknown; query?: Record<string, string> } = {},
) =>
  lendingCall<T>(platform, method, path, {
    key: tenant.keys.paymentOptions,
    token: customer.token,
    ...request,
  });
const cardsOf = async (customer: Customer) =>
  (await asCustomer<{ cards: Card[] }>(customer, 'GET', '/PaymentOptions/Cards')).body.cards;

/**
 * The customer's browser on the gateway's card page: the front site posts lending's form, the customer
 * enters `number` there. Answers the card as lending lists it once the gateway has told lending.
 */
async function saveCard(customer: Customer, number: string, body: Record<string, unknown> = {}) {
  const added = await asCustomer<NewCard>(customer, 'POST', '/PaymentOptions/Cards', { body });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  expect(added.body).toMatchObject({ status: 'pending', brand: null, cardPage: { method: 'POST' } });
  const { cardId, cardPage } = added.body;
  const page = await fetch(cardPage.action, { method: 'POST', body: new URLSearchParams(cardPage.fields) });
  const html = await page.text();
  expect(page.status, html.slice(0, 300)).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const result = await submitCard(platform.collectUrl, token, number);
  const decided = await eventually(
    async () => (await cardsOf(customer)).find((card) => card.cardId === cardId && card.status !== 'pending'),
    20_000,
    `card ${cardId} decided`,
  );
  return { card: decided, result, invoice: `LC-${cardId}` };
}

/** A loan of 1200.00 EUR created by management for the customer, paid out on `date`. */
async function disbursedLoan(customer: Customer, date: string): Promise<LoanView> {
  const created = await lendingCall<LoanView>(platform, 'POST', '/Management/Loans', {
    key: tenant.keys.management,
    body: {
      customerId: customer.customerId,
      productName: 'Personal 12',
      amount: '1200.00',
      term: 12,
      disbursements: [{ amount: '1200.00', date }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe('cards saved on the gateway’s card page', () => {
  it('saved without lending seeing the number; listed, renamed, default, deleted and forgotten at the gateway', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const account = await asCustomer<{ profileId: string; isDefault: boolean }>(
      customer,
      'POST',
      '/PaymentOptions/BankAccounts',
      { body: { iban: 'DE89370400440532013000' } },
    );
    expect(account.body.isDefault).toBe(true);

    const { card, result, invoice } = await saveCard(customer, '4000000000000002', {
      nickname: 'Salary card',
      returnUrl: `https://${tenant.domain}/cards/done`,
    });
    // Back to the front site's page.
    expect(result.status).toBe(303);
    expect(result.location).toContain(`https://${tenant.domain}/cards/done`);
    expect(card).toMatchObject({
      status: 'active',
      brand: 'VISA',
      last4: '0002',
      nickname: 'Salary card',
      // The bank account added first stays the default.
      isDefault: false,
    });
    expect(card.expiryYear).toBeGreaterThanOrEqual(new Date().getUTCFullYear());
    const [notification] = await eventually(async () => {
      const found = await gatewayNotifications(platform, merchant, invoice);
      return found[0]?.delivery === 'delivered' ? found : undefined;
    });
    expect(notification).toMatchObject({ status: 'SAVED', attemptCount: 1 });
    expect(notification?.attempts[0]?.reply).toBe('OK');

    // Lending holds the gateway's token sealed; no answer ever shows it.
    const [saved] = await platform.db
      .select()
      .from(collectSavedCards)
      .where(eq(collectSavedCards.merchantMin, merchant.min));
    const [row] = await platform.db.select().from(lendingCards).where(eq(lendingCards.id, card.cardId));
    expect(saved?.id).toMatch(/^scd_/);
    expect(saved?.tokenSealed).toMatch(/^v1\./);
    expect(row?.tokenSealed).toMatch(/^v1\./);
    expect(row?.tokenSealed).not.toContain(saved?.id);
    expect(JSON.stringify(await cardsOf(customer))).not.toContain('ctk_');

    const renamed = await asCustomer<Card>(customer, 'PUT', `/PaymentOptions/Cards/${card.cardId}`, {
      body: { nickname: 'Everyday', isDefault: true },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ nickname: 'Everyday', isDefault: true });
    const accounts = await asCustomer<{ isDefault: boolean }[]>(
      customer,
      'GET',
      '/PaymentOptions/BankAccounts',
    );
    expect(JSON.stringify(accounts.body)).toContain('"isDefault":false');

    // SetDefaultMethod back to the bank account, and to the card again.
    const toAccount = await asCustomer<{ profileId: string }>(
      customer,
      'POST',
      '/PaymentOptions/SetDefaultMethod',
      {
        query: { paymentMethodId: account.body.profileId },
      },
    );
    expect(toAccount.body.profileId).toBe(account.body.profileId);
    expect((await cardsOf(customer))[0]?.isDefault).toBe(false);
    const toCard = await asCustomer<Card>(customer, 'POST', '/PaymentOptions/SetDefaultMethod', {
      query: { paymentMethodId: card.cardId },
    });
    expect(toCard.body).toMatchObject({ cardId: card.cardId, isDefault: true });

    // Another customer sees nothing of it.
    const other = await registerCustomer(platform, tenant, completeDetails());
    expect(await cardsOf(other)).toEqual([]);
    const theirs = await asCustomer(other, 'PUT', `/PaymentOptions/Cards/${card.cardId}`, {
      body: { nickname: 'x' },
    });
    expect(theirs.status).toBe(404);
    const deleteTheirs = await asCustomer(other, 'DELETE', '/PaymentOptions/DeleteMethod', {
      query: { paymentMethodId: card.cardId },
    });
    expect(deleteTheirs.status).toBe(404);

    // Deleted: forgotten at the gateway, the bank account is the default again.
    const deleted = await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
      query: { paymentMethodId: card.cardId },
    });
    expect(deleted.status).toBe(204);
    expect(await cardsOf(customer)).toEqual([]);
    const [forgotten] = await platform.db
      .select()
      .from(collectSavedCards)
      .where(eq(collectSavedCards.id, saved?.id ?? ''));
    expect(forgotten?.deletedAt).not.toBeNull();
    const [kept] = await platform.db.select().from(lendingCards).where(eq(lendingCards.id, card.cardId));
    expect(kept).toMatchObject({ tokenSealed: null, isDefault: false });
    const after = await asCustomer<{ isDefault: boolean }[]>(customer, 'GET', '/PaymentOptions/BankAccounts');
    expect(JSON.stringify(after.body)).toContain('"isDefault":true');
    const again = await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
      query: { paymentMethodId: card.cardId },
    });
    expect(again.status).toBe(404);
  }, 90_000);

  it('the first method is the default; a declined card fails; refusals of the card operations', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const { card } = await saveCard(customer, '5555555555554444');
    expect(card).toMatchObject({ status: 'active', brand: 'MASTERCARD', last4: '4444', isDefault: true });
    // Unsetting the only method's default is refused.
    const only = await asCustomer(customer, 'PUT', `/PaymentOptions/Cards/${card.cardId}`, {
      body: { isDefault: false },
    });
    expect(only.status).toBe(409);
    expect(only.body.error?.code).toBe('default_method_required');

    const { card: declined } = await saveCard(customer, '4000000000009995');
    expect(declined).toMatchObject({ status: 'failed', isDefault: false, brand: null });
    expect(declined.reason).toContain('declined');
    const notActive = await asCustomer(customer, 'POST', '/PaymentOptions/SetDefaultMethod', {
      query: { paymentMethodId: declined.cardId },
    });
    expect(notActive.status).toBe(409);
    expect(notActive.body.error?.code).toBe('card_not_active');

    const badUrl = await asCustomer(customer, 'POST', '/PaymentOptions/Cards', {
      body: { returnUrl: 'https://evil.example/steal' },
    });
    expect(badUrl.status).toBe(400);
    const badField = await asCustomer(customer, 'POST', '/PaymentOptions/Cards', {
      body: { number: '4000000000000002' },
    });
    expect(badField.status).toBe(400);
    const emptyChange = await asCustomer(customer, 'PUT', `/PaymentOptions/Cards/${card.cardId}`, {
      body: {},
    });
    expect(emptyChange.status).toBe(400);
    const unknown = await asCustomer(customer, 'PUT', '/PaymentOptions/Cards/card_0000000000000000', {
      body: { nickname: 'x' },
    });
    expect(unknown.status).toBe(404);
  }, 60_000);
});

describe('repayments charged to a saved card', () => {
  it('SubmitRepayment by card: paid and booked once (the notification too); declined books nothing', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const { card } = await saveCard(customer, '4000000000000002');
    const loan = await disbursedLoan(customer, addDays(today(), -10));
    const pay = () =>
      asCustomer<Submission>(customer, 'POST', '/PaymentOptions/SubmitRepayment', {
        body: { loanId: loan.loanId, amount: '50.00', mode: 'card', reference: 'front-order-1' },
      });
    const paid = await pay();
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({
      status: 'paid',
      mode: 'Regular payment',
      channel: 'card',
      amount: '50.00',
      paymentMethodId: card.cardId,
      repaymentId: `rpm_${paid.body.submissionId.slice(4)}`,
    });
    expect(paid.body.reference).toMatch(/^\d{10}$/);
    // The same reference again (an answer lost on the way): the first submission, nothing charged twice.
    const authorisations = () =>
      platform.sandbox.acquirer.requests.filter((request) => request.path === '/v1/authorisations').length;
    const authorised = authorisations();
    const repeated = await pay();
    expect(authorisations()).toBe(authorised);
    expect(repeated.body).toMatchObject({ submissionId: paid.body.submissionId, status: 'paid' });
    const notification = await notified(platform, merchant, paid.body.invoice, 'PAID');
    expect(notification.attempts[0]?.reply).toBe('OK');
    await pause(QUIET_MS);
    expect(await gatewayNotifications(platform, merchant, paid.body.invoice)).toHaveLength(1);
    const booked = await loanOf(platform, tenant, loan.loanId);
    expect(booked.servicing?.repayments).toEqual([
      expect.objectContaining({ amount: '50.00', reference: paid.body.invoice, mode: 'Regular payment' }),
    ]);
    const comments = (await historyOf(platform, tenant, loan.loanId))
      .map((entry) => entry.comments)
      .join('\n');
    expect(comments).toContain('charged to VISA •••• 0002');

    // A card the issuer declines at every charge: declined, nothing booked.
    const { card: declining } = await saveCard(customer, '4000000000000341');
    const declined = await asCustomer<Submission>(customer, 'POST', '/PaymentOptions/SubmitRepayment', {
      body: { loanId: loan.loanId, amount: '20.00', mode: 'card', paymentMethodId: declining.cardId },
    });
    expect(declined.status, JSON.stringify(declined.body)).toBe(201);
    expect(declined.body).toMatchObject({
      status: 'declined',
      repaymentId: null,
      paymentMethodId: declining.cardId,
    });
    expect(declined.body.reason).toContain('declined');
    await pause(QUIET_MS);
    expect((await loanOf(platform, tenant, loan.loanId)).servicing?.repayments).toHaveLength(1);
    const history = (await historyOf(platform, tenant, loan.loanId))
      .map((entry) => entry.comments)
      .join('\n');
    expect(history).toContain('card repayment of 20.00 EUR declined');
  }, 90_000);

  it('auto-charge: on the due date the amount due is charged to the default card, once', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const { card } = await saveCard(customer, '4000000000000002');
    expect(card.isDefault).toBe(true);
    // The charge moment (00:00 UTC of the due date + LENDING_AUTOCHARGE_TIME) placed seconds ahead, for
    // loans created from now on (the setting is fixed into each loan, like the grace period).
    const configured = platform.config.LENDING_AUTOCHARGE_TIME;
    platform.config.LENDING_AUTOCHARGE_TIME = Date.now() - Date.parse(`${today()}T00:00:00Z`) + 6_000;
    let loan: LoanView;
    try {
      loan = await disbursedLoan(
        customer,
        startDateForFirstDueDate(today(), { amount: '1200.00', term: 12 }),
      );
    } finally {
      platform.config.LENDING_AUTOCHARGE_TIME = configured;
    }
    expect(loan.status).toBe('Active');
    const due = loan.servicing?.instalments[0]?.total as string;
    expect(loan.servicing?.dueNow).toBe(due);
    const enabled = await lendingCall<LoanView>(
      platform,
      'POST',
      `/Management/Loans/${loan.loanId}/AutochargeEnable`,
      {
        key: tenant.keys.management,
      },
    );
    expect(enabled.body.autocharge.enabled).toBe(true);

    const charged = await eventually(
      async () => {
        const read = await loanOf(platform, tenant, loan.loanId);
        return read.servicing?.repayments.length ? read : undefined;
      },
      30_000,
      'the auto-charge',
    );
    const [repayment] = charged.servicing?.repayments ?? [];
    expect(repayment).toMatchObject({ amount: due, mode: 'Regular payment' });
    expect(repayment?.reference).toMatch(/^LR-sub_[0-9a-f]{16}$/);
    expect(charged.servicing?.dueNow).toBe('0.00');
    const comments = (await historyOf(platform, tenant, loan.loanId))
      .map((entry) => entry.comments)
      .join('\n');
    expect(comments).toContain('auto-charged for instalment 1 to VISA •••• 0002');
    await notified(platform, merchant, repayment?.reference ?? '', 'PAID');
    // Once per instalment.
    await pause(2_000);
    expect((await loanOf(platform, tenant, loan.loanId)).servicing?.repayments).toHaveLength(1);
  }, 90_000);
});
