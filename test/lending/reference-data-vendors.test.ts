import { beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { createCreditProduct } from './products-support.ts';
import {
  admin,
  fieldsOf,
  front,
  other,
  platform,
  SEED,
  seeded,
  useReferenceDataPlatform,
} from './reference-data-support.ts';
import { completeDetails, lendingCall, registerCustomer } from './support.ts';

/**
 * A tenant's vendors and stores over HTTP (issue 21 item 4): Vendors/GetVendors, GetStores, StoresMap, as
 * the operator wrote them; a loan names the vendor and store it was sold at. Another tenant's vendors are
 * never visible. Dictionaries, settings and the operator's writes: reference-data.test.ts.
 */

useReferenceDataPlatform();

describe('Vendors', () => {
  it('GetVendors: the tenant’s active vendors with their store counts', async () => {
    const answer = await front(seeded, 'GET', '/Vendors/GetVendors');
    expect(answer.status).toBe(200);
    expect(answer.body.vendors).toEqual([
      { vendorId: 'empire-furniture', name: 'Empire Furniture', storeCount: 1 },
      { vendorId: 'lone-star-motors', name: 'Lone Star Motors', storeCount: 2 },
      { vendorId: 'sunrise-electronics', name: 'Sunrise Electronics', storeCount: 3 },
    ]);
    expect((await front(other, 'GET', '/Vendors/GetVendors')).body.vendors).toEqual([
      { vendorId: 'other-shop', name: 'Other shop', storeCount: 1 },
    ]);
  });

  it('GetStores/{vendorId}: its stores with coordinates; another tenant’s or an unknown vendor is 404', async () => {
    const answer = await front(seeded, 'GET', '/Vendors/GetStores/lone-star-motors');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ vendorId: 'lone-star-motors', name: 'Lone Star Motors' });
    expect(answer.body.stores).toEqual([
      expect.objectContaining({
        storeId: 'lsm-houston',
        city: 'houston',
        latitude: 29.7847,
        longitude: -95.5225,
      }),
      expect.objectContaining({ storeId: 'lsm-austin', vendorId: 'lone-star-motors' }),
    ]);
    expect((await front(other, 'GET', '/Vendors/GetStores/lone-star-motors')).status).toBe(404);
    expect((await front(seeded, 'GET', '/Vendors/GetStores/other-shop')).status).toBe(404);
    expect((await front(seeded, 'GET', '/Vendors/GetStores/nobody')).status).toBe(404);
  });

  it('StoresMap: every store, or those inside a bounding box, or of one vendor', async () => {
    const storeIds = (answer: { body: Record<string, unknown> }) =>
      (answer.body.stores as { storeId: string }[]).map((store) => store.storeId).sort();
    const all = await front(seeded, 'GET', '/Vendors/StoresMap');
    expect(all.status).toBe(200);
    expect(storeIds(all)).toEqual(
      SEED.vendors.flatMap((vendor) => vendor.stores.map((s) => s.storeId)).sort(),
    );
    expect((all.body.stores as { vendorName: string }[])[0]?.vendorName).toBe('Empire Furniture');
    // California only.
    const california = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { south: 32, west: -125, north: 42, east: -114 },
    });
    expect(storeIds(california)).toEqual(['sunrise-la-downtown', 'sunrise-sf-market']);
    // A box across the antimeridian (west > east) holds everything west of -100 as far as 170 E.
    const across = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { south: 0, west: 170, north: 60, east: -100 },
    });
    expect(storeIds(across)).toEqual(['sunrise-la-downtown', 'sunrise-sf-market']);
    const ofVendor = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { vendorId: 'lone-star-motors' },
    });
    expect(storeIds(ofVendor)).toEqual(['lsm-austin', 'lsm-houston']);
    expect(storeIds(await front(other, 'GET', '/Vendors/StoresMap'))).toEqual(['other-1']);
  });

  it('StoresMap names the bound it refuses', async () => {
    const partial = await front(seeded, 'GET', '/Vendors/StoresMap', { query: { south: 1, north: 2 } });
    expect(partial.status).toBe(400);
    expect(fieldsOf(partial).sort()).toEqual(['east', 'west']);
    const outside = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { south: -91, west: 0, north: 1, east: 1 },
    });
    expect(fieldsOf(outside)).toEqual(['south']);
    const inverted = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { south: 10, west: 0, north: 1, east: 1 },
    });
    expect(fieldsOf(inverted)).toEqual(['south']);
    const text = await front(seeded, 'GET', '/Vendors/StoresMap', {
      query: { south: 'x', west: 0, north: 1, east: 1 },
    });
    expect(fieldsOf(text)).toContain('south');
  });

  it('an inactive vendor and its stores are not shown', async () => {
    const vendor = {
      name: 'Closing down',
      active: false,
      stores: [{ storeId: 'closing-1', name: 'C1', address: 'Main St 1', latitude: 1, longitude: 1 }],
    };
    expect((await admin('PUT', `/lending/tenants/${other.tenantId}/vendors/closing`, vendor)).status).toBe(
      201,
    );
    expect((await front(other, 'GET', '/Vendors/GetVendors')).body.vendors).toHaveLength(1);
    expect((await front(other, 'GET', '/Vendors/GetStores/closing')).status).toBe(404);
    const map = await front(other, 'GET', '/Vendors/StoresMap');
    expect((map.body.stores as unknown[]).length).toBe(1);
  });
});

describe('a loan sold at a vendor’s store', () => {
  let customer: Awaited<ReturnType<typeof registerCustomer>>;
  beforeAll(async () => {
    await createCreditProduct(platform, seeded.tenantId);
    customer = await registerCustomer(platform, seeded, completeDetails());
  });
  const create = (body: Record<string, unknown>) =>
    lendingCall<LoanView>(platform, 'POST', '/Customer/Loans/Create', {
      key: seeded.keys.frontOffice,
      token: customer.token,
      body: { productName: 'Personal 12', amount: '5000', term: 12, ...body },
    });

  it('names the vendor and store; shown in the loan’s details', async () => {
    const created = await create({ vendorId: 'lone-star-motors', storeId: 'lsm-austin' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pointOfSale = {
      vendorId: 'lone-star-motors',
      vendorName: 'Lone Star Motors',
      storeId: 'lsm-austin',
      storeName: 'Lone Star Motors Austin',
    };
    expect(created.body.pointOfSale).toEqual(pointOfSale);
    const read = await lendingCall<LoanView>(platform, 'GET', `/Customer/Loans/${created.body.loanId}`, {
      key: seeded.keys.frontOffice,
      token: customer.token,
    });
    expect(read.body.pointOfSale).toEqual(pointOfSale);
    const managed = await lendingCall<LoanView>(platform, 'GET', `/Management/Loans/${created.body.loanId}`, {
      key: seeded.keys.management,
    });
    expect(managed.body.pointOfSale).toEqual(pointOfSale);
  });

  it('refuses a store of another vendor or tenant, an unknown vendor, a store without vendor: field named', async () => {
    for (const [body, field] of [
      [{ vendorId: 'lone-star-motors', storeId: 'sunrise-nyc-herald' }, 'storeId'],
      [{ vendorId: 'lone-star-motors', storeId: 'other-1' }, 'storeId'],
      [{ vendorId: 'other-shop', storeId: 'other-1' }, 'vendorId'],
      [{ vendorId: 'nobody', storeId: 'lsm-austin' }, 'vendorId'],
      [{ storeId: 'lsm-austin' }, 'vendorId'],
      // The seeded settings require the store of a vendor.
      [{ vendorId: 'lone-star-motors' }, 'storeId'],
      [{ vendorId: 'not a code' }, 'vendorId'],
    ] as const) {
      const answer = await create(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(answer), JSON.stringify(body)).toEqual([field]);
    }
  });

  it('management creates a loan sold at a store too; a loan without one has none', async () => {
    const createForCustomer = (storeId: string) =>
      lendingCall<LoanView>(platform, 'POST', '/Management/Loans', {
        key: seeded.keys.management,
        body: {
          customerId: customer.customerId,
          productName: 'Personal 12',
          amount: '2000',
          term: 6,
          vendorId: 'empire-furniture',
          storeId,
        },
      });
    const created = await createForCustomer('empire-albany');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.pointOfSale).toMatchObject({
      vendorId: 'empire-furniture',
      storeId: 'empire-albany',
    });
    const wrong = await createForCustomer('lsm-austin');
    expect(fieldsOf(wrong)).toEqual(['storeId']);
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body.pointOfSale).toBeNull();
  });

  it('the co-applicant settings decide PUT CoApplicant', async () => {
    const created = await create({ vendorId: 'sunrise-electronics', storeId: 'sunrise-la-downtown' });
    const put = (body: Record<string, unknown>) =>
      lendingCall<LoanView>(platform, 'PUT', `/Customer/Loans/${created.body.loanId}/CoApplicant`, {
        key: seeded.keys.frontOffice,
        token: customer.token,
        body: { firstName: 'John', lastName: 'Doe', ...body },
      });
    const withoutBirthDate = await put({});
    expect(withoutBirthDate.status).toBe(400);
    expect(fieldsOf(withoutBirthDate)).toEqual(['birthDate']);
    const strangeRelation = await put({ birthDate: '1980-01-01', relationship: 'landlord' });
    expect(fieldsOf(strangeRelation)).toEqual(['relationship']);
    const accepted = await put({ birthDate: '1980-01-01', relationship: 'spouse' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.coApplicant).toMatchObject({ firstName: 'John', relationship: 'spouse' });

    await admin('PUT', `/lending/tenants/${seeded.tenantId}/settings/co-applicant`, {
      allowed: false,
      required: false,
      requiredFields: [],
      relationships: [],
    });
    const notAllowed = await put({ birthDate: '1980-01-01' });
    expect(notAllowed.status).toBe(409);
    expect(notAllowed.body.error?.code).toBe('co_applicant_not_allowed');
  });
});
