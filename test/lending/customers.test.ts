import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lending } from '../../application/lending/index.ts';
import { createLendingClient } from '../../clients/src/lending.ts';
import { lendingCustomers } from '../../db/schema/lending.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lastEmailTo,
  lendingCall,
  registerCustomer,
} from './support.ts';

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform, { features: { stateManagement: true }, states: ['CA', 'NY'] });
});
afterAll(async () => {
  await platform?.stop();
});

interface CustomerAnswer {
  customerId: string;
  login: string;
  origin: string;
  details: Record<string, unknown>;
  detailsComplete: boolean;
  missingDetails: string[];
}

const management = <T = CustomerAnswer>(method: string, path: string, body?: unknown) =>
  lendingCall<T>(platform, method, path, {
    key: tenant.keys.management,
    ...(body === undefined ? {} : { body }),
  });

describe('Customer/Details', () => {
  it('reads and replaces the own details; completeness follows the required fields', async () => {
    const customer = await registerCustomer(platform, tenant, { firstName: 'Ann' });
    // The typed client (clients/, decision 0058) as the customer: the tenant's key and the user token.
    const own = createLendingClient(platform.apiUrl, {
      apiKey: tenant.keys.frontOffice,
      userAuthToken: customer.token,
    });
    const read = () => own.GET('/PublicApi/v7-12/Customer/Details');
    const before = await read();
    expect(before.data).toMatchObject({ detailsComplete: false, details: { firstName: 'Ann' } });
    expect(before.data?.missingDetails).toEqual([
      'lastName',
      'birthDate',
      'ssn',
      'email',
      'phone',
      'address.line1',
      'address.city',
      'address.state',
      'address.postalCode',
      'address.country',
    ]);
    const full = completeDetails({ driverLicenseId: 'D 123-4567' });
    const put = await own.PUT('/PublicApi/v7-12/Customer/Details', { body: full });
    expect(put.response.status).toBe(200);
    expect(put.data).toMatchObject({ detailsComplete: true, missingDetails: [], details: full });
    expect((await read()).data?.details).toEqual(full);
    // PUT replaces: a field left out is cleared, and the details are incomplete again.
    const { ssn: _ssn, ...withoutSsn } = full;
    const cleared = await own.PUT('/PublicApi/v7-12/Customer/Details', { body: withoutSsn });
    expect(cleared.data).toMatchObject({ detailsComplete: false, missingDetails: ['ssn'] });
    expect(cleared.data?.details.ssn).toBeUndefined();

    const invalid = await own.PUT('/PublicApi/v7-12/Customer/Details', {
      body: { phone: '555-1234', address: { country: 'usa' } },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error.fields?.map((field) => field.field).sort()).toEqual([
      'address.country',
      'phone',
    ]);
  });

  it('Register and Details refuse a phone the messaging gateway would refuse, naming `phone`', async () => {
    // The spec's example +15551234567 (a 555 number) is no number the gateway sends a signing code to.
    const example = '+15551234567';
    const registered = await lendingCall(platform, 'POST', '/Customer/Register', {
      key: tenant.keys.frontOffice,
      query: { login: `phone-${Date.now()}@example.com`, password: 'a long enough password' },
      body: { firstName: 'Ann', phone: example },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(400);
    expect(registered.body.error?.fields).toEqual([
      {
        field: 'phone',
        message:
          'not a valid phone number in international format: the messaging gateway would not send to it',
      },
    ]);
    const customer = await registerCustomer(platform, tenant, { firstName: 'Ann' });
    const details = await lendingCall(platform, 'PUT', '/Customer/Details', {
      key: tenant.keys.frontOffice,
      token: customer.token,
      body: completeDetails({ phone: example }),
    });
    expect(details.status, JSON.stringify(details.body)).toBe(400);
    expect(details.body.error?.fields?.map((field) => field.field)).toEqual(['phone']);
    // What the gateway takes, lending takes: the default test number and a Bulgarian mobile.
    for (const phone of ['+12025550143', '+359888123456']) {
      const accepted = await lendingCall(platform, 'PUT', '/Customer/Details', {
        key: tenant.keys.frontOffice,
        token: customer.token,
        body: completeDetails({ phone }),
      });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    }
  });

  it('keeps national ids encrypted at rest; readCustomer opens them with the config', async () => {
    const customer = await registerCustomer(
      platform,
      tenant,
      completeDetails({ ssn: '987-65-4321', driverLicenseId: 'DL99887766' }),
    );
    const [row] = await platform.db
      .select()
      .from(lendingCustomers)
      .where(eq(lendingCustomers.id, customer.customerId));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain('987-65-4321');
    expect(stored).not.toContain('DL99887766');
    expect(row?.ssnSealed).toMatch(/^v1\./);
    const withoutKey = await lending.readCustomer(
      { db: platform.db },
      { tenantId: tenant.tenantId, customerId: customer.customerId },
    );
    expect(withoutKey).toMatchObject({ detailsComplete: true });
    expect(withoutKey?.details.ssn).toBeUndefined();
    const opened = await lending.readCustomer(
      { db: platform.db, config: platform.config },
      { tenantId: tenant.tenantId, customerId: customer.customerId },
    );
    expect(opened?.details).toMatchObject({ ssn: '987-65-4321', driverLicenseId: 'DL99887766' });
    const other = await createLendingTenant(platform);
    expect(
      await lending.readCustomer(
        { db: platform.db },
        { tenantId: other.tenantId, customerId: customer.customerId },
      ),
    ).toBeUndefined();
  });
});

describe('Customer/Disclaimer, ConfirmAccount and States', () => {
  it('a registered customer confirms the disclaimer; one created by management gets 409', async () => {
    const disclaimer = await lendingCall<{ version: string; required: boolean }>(
      platform,
      'GET',
      '/Customer/Disclaimer',
      {
        key: tenant.keys.frontOffice,
      },
    );
    expect(disclaimer.body).toMatchObject({ required: true, version: '1' });
    const customer = await registerCustomer(platform, tenant);
    const confirm = (token: string) =>
      lendingCall<{ disclaimerVersion: string; confirmedAt: string }>(
        platform,
        'POST',
        '/Customer/ConfirmAccount',
        {
          key: tenant.keys.frontOffice,
          token,
        },
      );
    const first = await confirm(customer.token);
    expect(first.status).toBe(200);
    expect(first.body.disclaimerVersion).toBe('1');
    expect((await confirm(customer.token)).body.confirmedAt).toBe(first.body.confirmedAt);

    const login = `managed-${Date.now()}@example.com`;
    await management('POST', '/Management/Customers/Create', { login });
    await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login },
    });
    const mail = await lastEmailTo(platform, tenant.tenantId, login);
    const code = /\n([A-Za-z0-9_-]{43})\n/.exec(mail!.text!)![1]!;
    await lendingCall(platform, 'POST', '/User/ResetPassword', {
      key: tenant.keys.frontOffice,
      query: { code, newPassword: 'managed password' },
    });
    const loggedIn = await lendingCall<{ userAuthToken: string }>(platform, 'POST', '/User/Login', {
      key: tenant.keys.frontOffice,
      query: { login, password: 'managed password' },
    });
    const refused = await confirm(loggedIn.body.userAuthToken);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('account_not_self_registered');
  });

  it('States lists the states with state management, and is 404 state_management_disabled without', async () => {
    const states = await lendingCall<{ states: string[] }>(platform, 'GET', '/Customer/States', {
      key: tenant.keys.frontOffice,
    });
    expect(states.body).toEqual({ states: ['CA', 'NY'] });
    const plain = await createLendingTenant(platform);
    const none = await lendingCall(platform, 'GET', '/Customer/States', { key: plain.keys.frontOffice });
    expect(none.status).toBe(404);
    expect(none.body.error?.code).toBe('state_management_disabled');
  });
});

describe('Management/Customers', () => {
  it('creates, reads and updates a customer (also through the /Migration/ aliases)', async () => {
    const created = await management('POST', '/Management/Customers/Create', {
      login: 'Created.By.Api@example.com',
      details: { firstName: 'Carl', lastName: 'Created' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      login: 'created.by.api@example.com',
      origin: 'management',
      detailsComplete: false,
    });
    const id = created.body.customerId;
    expect((await management('GET', `/Management/Customers/${id}`)).body).toEqual(created.body);
    const updated = await management(
      'PUT',
      `/Management/Customers/${id}`,
      completeDetails({ firstName: 'Carl' }),
    );
    expect(updated.body).toMatchObject({ detailsComplete: true, details: { firstName: 'Carl' } });
    const viaMigration = await management('PUT', `/Migration/Customers/${id}`, { firstName: 'Carlo' });
    expect(viaMigration.body).toMatchObject({ details: { firstName: 'Carlo' }, detailsComplete: false });

    const migrated = await management('POST', '/Migration/Customers/Create', {
      login: 'migrated@example.com',
    });
    expect(migrated.status).toBe(201);
    expect(
      (await management('POST', '/Management/Customers/Create', { login: 'MIGRATED@example.com' })).status,
    ).toBe(409);
    expect((await management('GET', '/Management/Customers/cus_unknown')).status).toBe(404);
  });

  it('Search: every non-empty filter must match; paged with a total', async () => {
    const searchTenant = await createLendingTenant(platform);
    const create = (login: string, details: Record<string, unknown>) =>
      lendingCall<CustomerAnswer>(platform, 'POST', '/Management/Customers/Create', {
        key: searchTenant.keys.management,
        body: { login, details },
      });
    const ids: Record<string, string> = {};
    ids.ann = (
      await create('ann', {
        firstName: 'Ann',
        lastName: 'Smith',
        birthDate: '1980-01-02',
        email: 'Ann@Example.com',
        phone: '+12025550101',
        ssn: '111-22-3333',
      })
    ).body.customerId;
    ids.bob = (
      await create('bob', {
        firstName: 'Bob',
        lastName: 'Smith',
        birthDate: '1975-05-06',
        phone: '+12025550102',
        driverLicenseId: 'DL-555',
      })
    ).body.customerId;
    ids.ann2 = (
      await create('ann2', { firstName: 'ann', lastName: 'Jones', birthDate: '1980-01-02', ssn: '444556666' })
    ).body.customerId;
    for (let index = 0; index < 5; index += 1) await create(`extra${index}`, { lastName: 'Extra' });

    const search = async (query: Record<string, string | number>) => {
      const answer = await lendingCall<{
        items: { customerId: string }[];
        total: number;
        pageNumber: number;
        pageSize: number;
      }>(platform, 'GET', '/Management/Customers/Search', { key: searchTenant.keys.management, query });
      expect(answer.status, JSON.stringify(query)).toBe(200);
      return answer.body;
    };
    const idsOf = (page: { items: { customerId: string }[] }) =>
      page.items.map((item) => item.customerId).sort();

    expect(idsOf(await search({ lastName: 'smith' }))).toEqual([ids.ann, ids.bob].sort());
    expect(idsOf(await search({ firstName: 'ANN' }))).toEqual([ids.ann, ids.ann2].sort());
    expect(idsOf(await search({ firstName: 'Ann', lastName: 'Smith' }))).toEqual([ids.ann]);
    expect(idsOf(await search({ firstName: 'Ann', lastName: 'Smith', birthDate: '1975-05-06' }))).toEqual([]);
    expect(idsOf(await search({ birthDate: '1980-01-02' }))).toEqual([ids.ann, ids.ann2].sort());
    expect(idsOf(await search({ email: 'ann@example.COM' }))).toEqual([ids.ann]);
    expect(idsOf(await search({ phone: '+1 202 555-0102' }))).toEqual([ids.bob]);
    expect(idsOf(await search({ ssn: '111223333' }))).toEqual([ids.ann]);
    expect(idsOf(await search({ ssn: '444-55-6666' }))).toEqual([ids.ann2]);
    expect(idsOf(await search({ driverLicenseId: 'dl555' }))).toEqual([ids.bob]);
    // Empty filters do not filter.
    expect((await search({ firstName: '', lastName: 'Smith' })).total).toBe(2);

    const all = await search({});
    expect(all).toMatchObject({ total: 8, pageNumber: 1, pageSize: 20 });
    expect(all.items).toHaveLength(8);
    const page2 = await search({ lastName: 'Extra', pageNumber: 2, pageSize: 2 });
    expect(page2).toMatchObject({ total: 5, pageNumber: 2, pageSize: 2 });
    expect(page2.items).toHaveLength(2);
    const page3 = await search({ lastName: 'Extra', pageNumber: 3, pageSize: 2 });
    expect(page3.items).toHaveLength(1);
    expect(new Set([...idsOf(page2), ...idsOf(page3)]).size).toBe(3);

    for (const query of [
      { pageSize: 0 },
      { pageSize: 101 },
      { pageNumber: 0 },
      { birthDate: '02/01/1980' },
    ]) {
      const answer = await lendingCall(platform, 'GET', '/Management/Customers/Search', {
        key: searchTenant.keys.management,
        query,
      });
      expect(answer.status, JSON.stringify(query)).toBe(400);
    }
    // Another tenant's search does not see these customers.
    const elsewhere = await lendingCall<{ total: number }>(platform, 'GET', '/Management/Customers/Search', {
      key: tenant.keys.management,
      query: { lastName: 'Extra' },
    });
    expect(elsewhere.body.total).toBe(0);
  });
});

describe('Management/Customers/{customerId}/BankAccounts', () => {
  it('adds checked IBANs (the first is the default), lists them and deletes one', async () => {
    const customer = await registerCustomer(platform, tenant);
    const base = `/Management/Customers/${customer.customerId}/BankAccounts`;
    const first = await management<{ profileId: string; isDefault: boolean; iban: string }>('POST', base, {
      iban: 'DE89 3704 0044 0532 0130 00',
      holderName: 'Jane Doe',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ iban: 'DE89370400440532013000', isDefault: true });
    const second = await management<{ profileId: string; isDefault: boolean }>('POST', base, {
      iban: 'GB82WEST12345698765432',
      bic: 'NWBKGB2L',
    });
    expect(second.body.isDefault).toBe(false);
    const duplicate = await management('POST', base, { iban: 'DE89370400440532013000' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error?.code).toBe('bank_account_exists');
    const invalid = await management('POST', base, { iban: 'DE00370400440532013000' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error?.fields?.[0]?.field).toBe('iban');

    const listed = await management<{ items: { profileId: string; isDefault: boolean }[] }>('GET', base);
    expect(listed.body.items.map((item) => [item.profileId, item.isDefault])).toEqual([
      [first.body.profileId, true],
      [second.body.profileId, false],
    ]);
    expect((await management('DELETE', `${base}/${first.body.profileId}`)).status).toBe(204);
    expect((await management('DELETE', `${base}/${first.body.profileId}`)).status).toBe(404);
    const after = await management<{ items: { profileId: string; isDefault: boolean }[] }>('GET', base);
    expect(after.body.items).toMatchObject([{ profileId: second.body.profileId, isDefault: true }]);

    const otherCustomer = await registerCustomer(platform, tenant);
    const foreign = await management(
      'DELETE',
      `/Management/Customers/${otherCustomer.customerId}/BankAccounts/${second.body.profileId}`,
    );
    expect(foreign.status).toBe(404);
  });
});

describe('dictionaries', () => {
  it('findCancellationReason is scoped by tenant and tells front-office reasons apart', async () => {
    const listed = await lendingCall<{ items: { reasonId: string; name: string }[] }>(
      platform,
      'GET',
      '/Dictionary/CancellationReasons',
      { key: tenant.keys.frontOffice },
    );
    const reason = listed.body.items[0]!;
    expect(
      await lending.findCancellationReason(platform, {
        tenantId: tenant.tenantId,
        reasonId: reason.reasonId,
      }),
    ).toEqual({
      id: reason.reasonId,
      name: reason.name,
      frontOffice: true,
    });
    const other = await createLendingTenant(platform);
    expect(
      await lending.findCancellationReason(platform, { tenantId: other.tenantId, reasonId: reason.reasonId }),
    ).toBeUndefined();
  });
});
