import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createLendingTenant, type LendingTestTenant, lendingCall, registerCustomer } from './support.ts';

/**
 * Payment options over HTTP (decision 0042): the customer's own bank accounts (the same records as
 * Management/Customers/{customerId}/BankAccounts), one default method, SetDefaultMethod and DeleteMethod
 * by payment method id; another customer's method is 404. Key levels are the access matrix's
 * (test/lending/access-matrix.test.ts reads these routes from lendingOperations).
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;

interface Account {
  profileId: string;
  iban: string;
  isDefault: boolean;
}

const asCustomer = <T = Record<string, unknown>>(
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

const methods = async (customer: Customer) => {
  const answer = await asCustomer<{ items: Account[] }>(customer, 'GET', '/PaymentOptions/BankAccounts');
  expect(answer.status).toBe(200);
  return answer.body.items;
};

const addAccount = async (customer: Customer, iban: string, extra: Record<string, unknown> = {}) => {
  const answer = await asCustomer<Account>(customer, 'POST', '/PaymentOptions/BankAccounts', {
    body: { iban, ...extra },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
};

const defaults = (accounts: Account[]) =>
  accounts.filter((account) => account.isDefault).map((a) => a.profileId);

describe('payment methods', () => {
  it('lists, adds, moves the default and deletes; the default moves when the default is deleted', async () => {
    const customer = await registerCustomer(platform, tenant);
    expect(await methods(customer)).toEqual([]);

    const first = await addAccount(customer, 'DE89 3704 0044 0532 0130 00');
    expect(first).toMatchObject({ iban: 'DE89370400440532013000', isDefault: true });
    expect(first.profileId).toMatch(/^bac_/);
    const second = await addAccount(customer, 'GB82WEST12345698765432', { holderName: 'Jane Doe' });
    const third = await addAccount(customer, 'BG19SBXA96611000000001');
    expect(second.isDefault).toBe(false);
    expect((await methods(customer)).map((account) => account.profileId)).toEqual([
      first.profileId,
      second.profileId,
      third.profileId,
    ]);
    expect(defaults(await methods(customer))).toEqual([first.profileId]);

    // The same IBAN twice is refused.
    const again = await asCustomer(customer, 'POST', '/PaymentOptions/BankAccounts', {
      body: { iban: 'DE89370400440532013000' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('bank_account_exists');

    const set = await asCustomer<Account>(customer, 'POST', '/PaymentOptions/SetDefaultMethod', {
      query: { paymentMethodId: second.profileId },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ profileId: second.profileId, isDefault: true });
    expect(defaults(await methods(customer))).toEqual([second.profileId]);

    // Deleting the default: the oldest remaining method becomes the default.
    const deleted = await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
      query: { paymentMethodId: second.profileId },
    });
    expect(deleted.status).toBe(204);
    const left = await methods(customer);
    expect(left.map((account) => account.profileId)).toEqual([first.profileId, third.profileId]);
    expect(defaults(left)).toEqual([first.profileId]);

    // Deleting one that is not the default leaves the default alone; deleting it again is 404.
    expect(
      (
        await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
          query: { paymentMethodId: third.profileId },
        })
      ).status,
    ).toBe(204);
    expect(defaults(await methods(customer))).toEqual([first.profileId]);
    expect(
      (
        await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
          query: { paymentMethodId: third.profileId },
        })
      ).status,
    ).toBe(404);
  });

  it('adding with isDefault makes the new method the only default', async () => {
    const customer = await registerCustomer(platform, tenant);
    const first = await addAccount(customer, 'DE89370400440532013000');
    const second = await addAccount(customer, 'GB82WEST12345698765432', { isDefault: true });
    expect(defaults(await methods(customer))).toEqual([second.profileId]);
    expect(first.isDefault).toBe(true);
  });

  it('shares the records of Management/Customers/{customerId}/BankAccounts', async () => {
    const customer = await registerCustomer(platform, tenant);
    const added = await lendingCall<Account>(
      platform,
      'POST',
      `/Management/Customers/${customer.customerId}/BankAccounts`,
      { key: tenant.keys.management, body: { iban: 'DE89370400440532013000' } },
    );
    expect(added.status).toBe(201);
    expect((await methods(customer)).map((account) => account.profileId)).toEqual([added.body.profileId]);
  });

  it('another customer’s method is 404 for SetDefaultMethod and DeleteMethod, and stays as it was', async () => {
    const owner = await registerCustomer(platform, tenant);
    const other = await registerCustomer(platform, tenant);
    const account = await addAccount(owner, 'DE89370400440532013000');
    for (const [method, path] of [
      ['POST', '/PaymentOptions/SetDefaultMethod'],
      ['DELETE', '/PaymentOptions/DeleteMethod'],
    ] as const) {
      const answer = await asCustomer(other, method, path, { query: { paymentMethodId: account.profileId } });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
    }
    // A customer of another tenant, with that tenant's key, does not reach it either.
    const otherTenant = await createLendingTenant(platform);
    const stranger = await registerCustomer(platform, otherTenant);
    const foreign = await lendingCall(platform, 'DELETE', '/PaymentOptions/DeleteMethod', {
      key: otherTenant.keys.paymentOptions,
      token: stranger.token,
      query: { paymentMethodId: account.profileId },
    });
    expect(foreign.status).toBe(404);
    expect(await methods(owner)).toMatchObject([{ profileId: account.profileId, isDefault: true }]);
    expect(await methods(other)).toEqual([]);
  });

  it('refuses a missing or unknown payment method id, and calls without the user token', async () => {
    const customer = await registerCustomer(platform, tenant);
    const missing = await asCustomer(customer, 'POST', '/PaymentOptions/SetDefaultMethod');
    expect(missing.status).toBe(400);
    expect(missing.body.error?.fields?.map((field) => field.field)).toContain('paymentMethodId');
    for (const paymentMethodId of ['bac_000000000000000000000000', 'card_x', 'nonsense']) {
      const answer = await asCustomer(customer, 'DELETE', '/PaymentOptions/DeleteMethod', {
        query: { paymentMethodId },
      });
      expect(answer.status, paymentMethodId).toBe(404);
    }
    const anonymous = await lendingCall(platform, 'GET', '/PaymentOptions/BankAccounts', {
      key: tenant.keys.paymentOptions,
    });
    expect(anonymous.status).toBe(401);
    const badIban = await asCustomer(customer, 'POST', '/PaymentOptions/BankAccounts', {
      body: { iban: 'DE00370400440532013000' },
    });
    expect(badIban.status).toBe(400);
    expect(badIban.body.error?.fields?.map((field) => field.field)).toContain('iban');
  });
});
