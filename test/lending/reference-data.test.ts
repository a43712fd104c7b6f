import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  admin,
  adminCommand,
  bare,
  fieldsOf,
  front,
  other,
  SEED,
  seeded,
  useReferenceDataPlatform,
} from './reference-data-support.ts';
import type { LendingTestTenant } from './support.ts';

/**
 * A tenant's reference data over HTTP (issue 21 items 3 and 4): Dictionary/GetValues and
 * GetFilteredValues, Settings/Application/CoApplicant, Vendors/GetSettings, written by the operator (admin
 * API and `npm run admin -- lending:seed-reference-data`, which reads datasets/lending-reference-data.json).
 * Another tenant's data is never visible. Vendors, stores and a loan sold at one:
 * reference-data-vendors.test.ts.
 */

useReferenceDataPlatform();

describe('Dictionary/GetValues', () => {
  it('answers every dictionary of the tenant, values in the file’s order; no body needed', async () => {
    const answer = await front(seeded, 'POST', '/Dictionary/GetValues');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const dictionaries = answer.body.dictionaries as {
      name: string;
      parent: string | null;
      values: unknown[];
    }[];
    expect(dictionaries.map((dictionary) => dictionary.name).sort()).toEqual(
      SEED.dictionaries.map((dictionary) => dictionary.name).sort(),
    );
    const cities = dictionaries.find((dictionary) => dictionary.name === 'Cities');
    expect(cities?.parent).toBe('Regions');
    expect(cities?.values[0]).toEqual({ code: 'los-angeles', name: 'Los Angeles', parentCode: 'CA' });
    expect(cities?.values).toHaveLength(SEED.dictionaries.find((d) => d.name === 'Cities')!.values.length);
    expect((await front(seeded, 'POST', '/Dictionary/GetValues', { body: {} })).status).toBe(200);
  });

  it('answers only the dictionaries named; an unknown name is 400 naming it', async () => {
    const answer = await front(seeded, 'POST', '/Dictionary/GetValues', {
      body: { names: ['LoanPurposes'] },
    });
    expect(answer.status).toBe(200);
    expect((answer.body.dictionaries as { name: string }[]).map((d) => d.name)).toEqual(['LoanPurposes']);
    const unknown = await front(seeded, 'POST', '/Dictionary/GetValues', {
      body: { names: ['LoanPurposes', 'Planets'] },
    });
    expect(unknown.status).toBe(400);
    expect(fieldsOf(unknown)).toEqual(['names.1']);
    const malformed = await front(seeded, 'POST', '/Dictionary/GetValues', {
      body: { names: ['no spaces'] },
    });
    expect(malformed.status).toBe(400);
    expect(fieldsOf(malformed)).toEqual(['names.0']);
  });

  it('never shows another tenant’s dictionaries', async () => {
    const answer = await front(other, 'POST', '/Dictionary/GetValues');
    expect(answer.body).toEqual({
      dictionaries: [
        { name: 'Cities', parent: null, values: [{ code: 'sofia', name: 'Sofia', parentCode: null }] },
      ],
    });
    const named = await front(other, 'POST', '/Dictionary/GetValues', { body: { names: ['Regions'] } });
    expect(named.status).toBe(400);
    expect((await front(bare, 'POST', '/Dictionary/GetValues')).body).toEqual({ dictionaries: [] });
  });
});

describe('Dictionary/GetFilteredValues', () => {
  const filtered = (tenant: LendingTestTenant, body: unknown) =>
    front(tenant, 'POST', '/Dictionary/GetFilteredValues', { body });
  const codes = (answer: { body: Record<string, unknown> }) =>
    (answer.body.values as { code: string }[]).map((value) => value.code);

  it('filters by parent value, name prefix (ignoring case) and codes, all together', async () => {
    const ofTexas = await filtered(seeded, { name: 'Cities', parentCode: 'TX' });
    expect(ofTexas.status, JSON.stringify(ofTexas.body)).toBe(200);
    expect(codes(ofTexas)).toEqual(['houston', 'san-antonio', 'austin']);
    expect(codes(await filtered(seeded, { name: 'Cities', startsWith: 'san' }))).toEqual([
      'san-diego',
      'san-francisco',
      'san-antonio',
    ]);
    expect(codes(await filtered(seeded, { name: 'Cities', parentCode: 'CA', startsWith: 'SAN' }))).toEqual([
      'san-diego',
      'san-francisco',
    ]);
    expect(codes(await filtered(seeded, { name: 'Cities', codes: ['austin', 'albany', 'nowhere'] }))).toEqual(
      ['albany', 'austin'],
    );
    // LIKE's signs are literal in a prefix.
    expect(codes(await filtered(seeded, { name: 'Cities', startsWith: '%' }))).toEqual([]);
  });

  it('answers at most `limit` values and says there are more', async () => {
    const first = await filtered(seeded, { name: 'Cities', limit: 2 });
    expect(codes(first)).toEqual(['los-angeles', 'san-diego']);
    expect(first.body.more).toBe(true);
    expect((await filtered(seeded, { name: 'Cities', parentCode: 'NY' })).body.more).toBe(false);
  });

  it('names the field it refuses', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: 'Planets' }, 'name'],
      [{ name: 'EmploymentTypes', parentCode: 'CA' }, 'parentCode'],
      [{ name: 'Cities', limit: 0 }, 'limit'],
      [{ name: 'Cities', startsWith: '' }, 'startsWith'],
      [{ name: 'Cities', colour: 'red' }, '(body)'],
    ] as const) {
      const answer = await filtered(seeded, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(answer).join(), JSON.stringify(body)).toContain(field);
    }
  });

  it('never filters another tenant’s dictionary', async () => {
    const answer = await filtered(other, { name: 'Cities', startsWith: 'san' });
    expect(answer.status).toBe(200);
    expect(codes(answer)).toEqual([]);
    expect((await filtered(bare, { name: 'Cities' })).status).toBe(400);
  });
});

describe('Settings/Application/CoApplicant and Vendors/GetSettings', () => {
  it('answers the defaults until the operator sets them, then what was set', async () => {
    expect((await front(bare, 'GET', '/Settings/Application/CoApplicant')).body).toEqual({
      allowed: true,
      required: false,
      requiredFields: [],
      relationships: [],
    });
    expect((await front(bare, 'GET', '/Vendors/GetSettings')).body).toEqual({
      vendorRequired: false,
      storeRequired: false,
      showStoresMap: true,
    });
    expect((await front(seeded, 'GET', '/Settings/Application/CoApplicant')).body).toMatchObject({
      requiredFields: ['birthDate'],
      relationships: expect.arrayContaining(['spouse']),
    });
    expect((await front(seeded, 'GET', '/Vendors/GetSettings')).body).toMatchObject({ storeRequired: true });
  });

  it('the operator’s settings are validated, naming the field', async () => {
    const refused = await admin('PUT', `/lending/tenants/${bare.tenantId}/settings/co-applicant`, {
      allowed: false,
      required: true,
      requiredFields: [],
      relationships: [],
    });
    expect(refused.status).toBe(400);
    expect(fieldsOf(refused)).toEqual(['required']);
    const unknownField = await admin('PUT', `/lending/tenants/${bare.tenantId}/settings/co-applicant`, {
      allowed: true,
      required: false,
      requiredFields: ['shoeSize'],
      relationships: [],
    });
    expect(fieldsOf(unknownField)).toEqual(['requiredFields.0']);
    const noTenant = await admin('PUT', '/lending/tenants/ten_nobody/settings/vendors', {
      vendorRequired: true,
      storeRequired: false,
      showStoresMap: false,
    });
    expect(noTenant.status).toBe(404);
  });
});

describe('the operator’s management', () => {
  it('PUT dictionary creates, then replaces; DELETE removes; fields named', async () => {
    const base = `/lending/tenants/${bare.tenantId}/dictionaries`;
    expect((await admin('PUT', `${base}/Colours`, { values: [{ code: 'red', name: 'Red' }] })).status).toBe(
      201,
    );
    const replaced = await admin('PUT', `${base}/Colours`, {
      values: [
        { code: 'blue', name: 'Blue' },
        { code: 'green', name: 'Green' },
      ],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'Colours', values: [{ code: 'blue' }, { code: 'green' }] });

    const twice = await admin('PUT', `${base}/Shades`, {
      values: [
        { code: 'a', name: 'A' },
        { code: 'a', name: 'B' },
      ],
    });
    expect(fieldsOf(twice)).toEqual(['values.1.code']);
    const noParent = await admin('PUT', `${base}/Shades`, { parent: 'Nothing', values: [] });
    expect(fieldsOf(noParent)).toEqual(['parent']);
    const orphan = await admin('PUT', `${base}/Shades`, {
      parent: 'Colours',
      values: [
        { code: 'navy', name: 'Navy', parentCode: 'blue' },
        { code: 'scarlet', name: 'Scarlet', parentCode: 'red' },
      ],
    });
    expect(fieldsOf(orphan)).toEqual(['values.1.parentCode']);
    const withoutParent = await admin('PUT', `${base}/Shades`, {
      values: [{ code: 'x', name: 'X', parentCode: 'blue' }],
    });
    expect(fieldsOf(withoutParent)).toEqual(['values.0.parentCode']);
    expect(
      (
        await admin('PUT', `${base}/Shades`, {
          parent: 'Colours',
          values: [{ code: 'navy', name: 'Navy', parentCode: 'blue' }],
        })
      ).status,
    ).toBe(201);

    const inUse = await admin('DELETE', `${base}/Colours`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error?.code).toBe('dictionary_in_use');
    expect((await admin('DELETE', `${base}/Shades`)).status).toBe(204);
    expect((await admin('DELETE', `${base}/Shades`)).status).toBe(404);
    expect((await admin('DELETE', `${base}/Colours`)).status).toBe(204);
    expect((await front(bare, 'POST', '/Dictionary/GetValues')).body).toEqual({ dictionaries: [] });
    expect(
      (await admin('PUT', '/lending/tenants/ten_nobody/dictionaries/Colours', { values: [] })).status,
    ).toBe(404);
  });

  it('PUT vendor refuses a store id of another vendor, or twice, naming it', async () => {
    const store = (storeId: string) => ({
      storeId,
      name: storeId,
      address: 'Somewhere 1',
      latitude: 0,
      longitude: 0,
    });
    const base = `/lending/tenants/${seeded.tenantId}/vendors`;
    const taken = await admin('PUT', `${base}/newcomer`, {
      name: 'Newcomer',
      stores: [store('n1'), store('lsm-austin')],
    });
    expect(taken.status).toBe(400);
    expect(fieldsOf(taken)).toEqual(['stores.1.storeId']);
    const twice = await admin('PUT', `${base}/newcomer`, {
      name: 'Newcomer',
      stores: [store('n1'), store('n1')],
    });
    expect(fieldsOf(twice)).toEqual(['stores.1.storeId']);
    const badCoordinates = await admin('PUT', `${base}/newcomer`, {
      name: 'Newcomer',
      stores: [{ ...store('n1'), latitude: 95 }],
    });
    expect(fieldsOf(badCoordinates)).toEqual(['stores.0.latitude']);
    // Another tenant may use the same store id.
    expect(
      (
        await admin('PUT', `/lending/tenants/${bare.tenantId}/vendors/v`, {
          name: 'V',
          stores: [store('lsm-austin')],
        })
      ).status,
    ).toBe(201);
  });

  it('POST reference-data writes a seed’s shape, naming a refused field by its place in it', async () => {
    const base = `/lending/tenants/${bare.tenantId}/reference-data`;
    const twice = await admin('POST', base, {
      dictionaries: [
        { name: 'Fine', values: [] },
        {
          name: 'Twice',
          values: [
            { code: 'a', name: 'A' },
            { code: 'a', name: 'B' },
          ],
        },
      ],
    });
    expect(twice.status).toBe(400);
    expect(fieldsOf(twice)).toEqual(['dictionaries.1.values.1.code']);
    const written = await admin('POST', base, {
      vendorSettings: { vendorRequired: true, storeRequired: false, showStoresMap: false },
    });
    expect(written.body).toEqual({ dictionaries: [], vendors: [], settings: ['vendors'] });
    expect((await front(bare, 'GET', '/Vendors/GetSettings')).body).toEqual({
      vendorRequired: true,
      storeRequired: false,
      showStoresMap: false,
    });
  });

  it('GET reference-data shows everything; the seed command runs again without change', async () => {
    const before = await admin('GET', `/lending/tenants/${seeded.tenantId}/reference-data`);
    expect(before.status).toBe(200);
    await adminCommand('lending:seed-reference-data', '--tenant', seeded.tenantId);
    const after = await admin('GET', `/lending/tenants/${seeded.tenantId}/reference-data`);
    expect(after.body).toEqual(before.body);
    expect((after.body.vendors as unknown[]).length).toBe(SEED.vendors.length);
    const printed = await adminCommand('lending:reference-data', '--tenant', seeded.tenantId);
    expect(JSON.parse(printed.stdout)).toEqual(before.body);
  });

  it('the seed command names what is wrong in a file, and an unknown tenant', async () => {
    const failed = await adminCommand('lending:seed-reference-data', '--tenant', 'ten_nobody').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('Tenant not found') });
    const folder = mkdtempSync(path.join(tmpdir(), 'reference-data-'));
    const run = async (name: string, content: unknown) => {
      writeFileSync(path.join(folder, name), JSON.stringify(content));
      return adminCommand(
        'lending:reference-data',
        '--tenant',
        seeded.tenantId,
        path.join(folder, name),
      ).catch((error: { code: number; stderr: string }) => error);
    };
    // The file's shape, then what only the tenant's data can tell: both name the place in the file.
    const store = { storeId: 's', name: 'S', address: 'A', latitude: 1 };
    expect(
      await run('shape.json', { vendors: [{ vendorId: 'v', name: 'V', stores: [store] }] }),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('vendors.0.stores.0.longitude'),
    });
    const towns = { name: 'Towns', parent: 'Regions', values: [{ code: 'x', name: 'X', parentCode: 'ZZ' }] };
    expect(await run('orphan.json', { dictionaries: [towns] })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('dictionaries.0.values.0.parentCode: not a code of Regions'),
    });
  });
});
