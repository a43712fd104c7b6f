import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, lendingUrl } from './support.ts';

/**
 * Credit products and calculation over HTTP (decision 0038): Customer/CreditProducts and
 * Management/CreditProducts (and its /Migration/ alias) filtered by state, Customer/PromoCode/Check,
 * Customer/Loans/Calculate with the 400s naming the field, and the operator's admin endpoint.
 */

const ADMIN_TOKEN = 'admin-token-for-lending-products-0123456789';
let platform: TestPlatform;
let tenant: Awaited<ReturnType<typeof createLendingTenant>>;
let otherTenant: Awaited<ReturnType<typeof createLendingTenant>>;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  tenant = await createLendingTenant(platform);
  otherTenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId, {
    promoCodes: ['spring-26'],
    promoRateDiscount: '2.5',
    fees: { originationPercent: '1', monthly: '2.00' },
  });
  await createCreditProduct(platform, tenant.tenantId, {
    name: 'California Auto',
    secured: true,
    states: ['CA'],
    promoCodes: ['CA-DRIVE'],
    amortisation: 'equal_principal',
    amount: { min: '2000.00', max: '50000.00' },
    term: { min: 12, max: 60 },
    annualInterestRate: '7.9',
  });
  await createCreditProduct(platform, otherTenant.tenantId, { name: 'Elsewhere', promoCodes: ['OTHER-1'] });
});
afterAll(async () => {
  await platform?.stop();
});

const call = (key: string, method: string, specPath: string, body?: unknown) =>
  fetch(lendingUrl(platform, specPath), {
    method,
    headers: { lender_ApiKey: key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

interface ProductAnswer {
  name: string;
  states: string[];
  promoCodes?: string[];
}
const namesOf = async (response: Response) => {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { creditProducts: ProductAnswer[] };
  return body.creditProducts.map((product) => product.name);
};

interface ErrorAnswer {
  error: { code: string; message: string; fields?: { field: string; message: string }[] };
}
const fieldsOf = async (response: Response) => {
  expect(response.status).toBe(400);
  const body = (await response.json()) as ErrorAnswer;
  expect(body.error.code).toBe('validation_failed');
  return body.error.fields ?? [];
};

describe('Customer/CreditProducts', () => {
  it('lists the tenant’s products by Name, without promo codes', async () => {
    const response = await call(tenant.keys.frontOffice, 'GET', '/Customer/CreditProducts');
    const body = (await response.clone().json()) as { creditProducts: ProductAnswer[] };
    expect(await namesOf(response)).toEqual(['California Auto', 'Personal 12']);
    for (const product of body.creditProducts) expect(product).not.toHaveProperty('promoCodes');
  });

  it('filters by state: a product for every state is in every list (case does not matter)', async () => {
    expect(
      await namesOf(await call(tenant.keys.frontOffice, 'GET', '/Customer/CreditProducts?state=CA')),
    ).toEqual(['California Auto', 'Personal 12']);
    expect(
      await namesOf(await call(tenant.keys.frontOffice, 'GET', '/Customer/CreditProducts?state=ca')),
    ).toEqual(['California Auto', 'Personal 12']);
    expect(
      await namesOf(await call(tenant.keys.frontOffice, 'GET', '/Customer/CreditProducts?state=NY')),
    ).toEqual(['Personal 12']);
  });

  it('never shows another tenant’s products', async () => {
    expect(
      await namesOf(await call(otherTenant.keys.frontOffice, 'GET', '/Customer/CreditProducts')),
    ).toEqual(['Elsewhere']);
  });

  it('needs the key', async () => {
    const response = await fetch(lendingUrl(platform, '/Customer/CreditProducts'));
    expect(response.status).toBe(401);
  });
});

describe('Management/CreditProducts', () => {
  it('lists with promo codes, filtered by state, also at /Migration/CreditProducts', async () => {
    for (const path of ['/Management/CreditProducts?state=NY', '/Migration/CreditProducts?state=NY']) {
      const response = await call(tenant.keys.management, 'GET', path);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { creditProducts: ProductAnswer[] };
      expect(body.creditProducts).toEqual([
        expect.objectContaining({ name: 'Personal 12', promoCodes: ['SPRING-26'], promoRateDiscount: '2.5' }),
      ]);
    }
  });

  it('refuses a front-office key', async () => {
    const response = await call(tenant.keys.frontOffice, 'GET', '/Management/CreditProducts');
    expect(response.status).toBe(403);
  });
});

describe('Customer/PromoCode/Check', () => {
  const check = (query: string, key = tenant.keys.frontOffice) =>
    call(key, 'GET', `/Customer/PromoCode/Check?${query}`).then(async (response) => {
      expect(response.status).toBe(200);
      return response.json();
    });

  it('finds a promo code whatever its case, with its product and discount', async () => {
    expect(await check('promoCode=Spring-26')).toEqual({
      exists: true,
      promoCode: 'SPRING-26',
      productName: 'Personal 12',
      promoRateDiscount: '2.5',
    });
  });

  it('only among the products offered in the state', async () => {
    expect(await check('promoCode=CA-DRIVE&state=CA')).toMatchObject({
      exists: true,
      productName: 'California Auto',
    });
    expect(await check('promoCode=CA-DRIVE&state=NY')).toEqual({ exists: false });
  });

  it('an unknown code, a product Name and another tenant’s code do not exist', async () => {
    expect(await check('promoCode=NOPE')).toEqual({ exists: false });
    expect(await check('promoCode=Personal%2012')).toEqual({ exists: false });
    expect(await check('promoCode=OTHER-1')).toEqual({ exists: false });
  });

  it('needs promoCode', async () => {
    const response = await call(tenant.keys.frontOffice, 'GET', '/Customer/PromoCode/Check');
    expect((await fieldsOf(response)).map((field) => field.field)).toEqual(['promoCode']);
  });
});

describe('Customer/Loans/Calculate', () => {
  const calculate = (body: unknown, key = tenant.keys.frontOffice) =>
    call(key, 'POST', '/Customer/Loans/Calculate', body);

  interface ScheduleAnswer {
    productName: string;
    annualInterestRate: string;
    promoCode?: string;
    instalments: {
      number: number;
      dueDate: string;
      principal: string;
      fee: string;
      remainingBalance: string;
    }[];
    totals: { principal: string; payable: string; fees: string };
    apr: string;
  }

  it('refuses a start date beyond a year ahead (year 9999 among them), naming startDate', async () => {
    for (const startDate of ['9999-12-31', '2200-01-01']) {
      const response = await calculate({
        productName: 'Personal 12',
        amount: '5000.00',
        term: 12,
        startDate,
      });
      expect(response.status).toBe(400);
      expect((await fieldsOf(response)).map((field) => field.field)).toEqual(['startDate']);
    }
    const nextMonth = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const soon = await calculate({
      productName: 'Personal 12',
      amount: '5000.00',
      term: 12,
      startDate: nextMonth,
    });
    expect(soon.status).toBe(200);
  });

  it('answers the full schedule under the product’s Name, with the key alone', async () => {
    const response = await calculate({
      productName: 'Personal 12',
      amount: '5000.00',
      term: 12,
      startDate: '2026-01-31',
    });
    expect(response.status).toBe(200);
    const schedule = (await response.json()) as ScheduleAnswer;
    expect(schedule.productName).toBe('Personal 12');
    expect(schedule.annualInterestRate).toBe('12');
    expect(schedule.instalments).toHaveLength(12);
    expect(schedule.instalments.slice(0, 3).map((row) => row.dueDate)).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
    ]);
    expect(schedule.totals.principal).toBe('5000.00');
    expect(schedule.instalments.at(-1)!.remainingBalance).toBe('0.00');
    // 1 % origination with the first instalment, 2.00 a month.
    expect(schedule.instalments[0]!.fee).toBe('52.00');
    expect(schedule.totals.fees).toBe('74.00');
    const principal = schedule.instalments.reduce((sum, row) => sum.plus(row.principal), new Decimal(0));
    expect(principal.toFixed(2)).toBe('5000.00');
  });

  it('takes a promo code in place of the Name, with its discount', async () => {
    const response = await calculate({ productName: 'spring-26', amount: '5000.00', term: 12 });
    expect(response.status).toBe(200);
    const schedule = (await response.json()) as ScheduleAnswer;
    expect(schedule).toMatchObject({
      productName: 'Personal 12',
      promoCode: 'SPRING-26',
      annualInterestRate: '9.5',
    });
    // Without a start date the loan starts today (UTC).
    expect(schedule.instalments[0]!.dueDate > new Date().toISOString().slice(0, 10)).toBe(true);
  });

  it('equal principal parts for an equal_principal product', async () => {
    const response = await calculate({ productName: 'California Auto', amount: '10000.00', term: 12 });
    const schedule = (await response.json()) as ScheduleAnswer;
    expect(new Set(schedule.instalments.slice(0, -1).map((row) => row.principal))).toEqual(
      new Set(['833.33']),
    );
    expect(schedule.instalments.at(-1)!.principal).toBe('833.37');
  });

  it('400 naming productName for an unknown product, or another tenant’s', async () => {
    for (const productName of ['No such loan', 'Elsewhere', 'OTHER-1']) {
      const fields = await fieldsOf(await calculate({ productName, amount: '5000.00', term: 12 }));
      expect(fields).toEqual([
        { field: 'productName', message: `no credit product or promo code named "${productName}"` },
      ]);
    }
  });

  it('400 naming amount and term outside the product’s bounds', async () => {
    expect(
      await fieldsOf(await calculate({ productName: 'Personal 12', amount: '20000.01', term: 12 })),
    ).toEqual([{ field: 'amount', message: 'must be between 500.00 and 20000.00 EUR for Personal 12' }]);
    expect(
      await fieldsOf(await calculate({ productName: 'Personal 12', amount: '499.99', term: 37 })),
    ).toEqual([
      { field: 'amount', message: 'must be between 500.00 and 20000.00 EUR for Personal 12' },
      { field: 'term', message: 'must be a whole number of months between 3 and 36 for Personal 12' },
    ]);
    expect(
      await fieldsOf(await calculate({ productName: 'Personal 12', amount: '1000.001', term: 12 })),
    ).toEqual([{ field: 'amount', message: 'has more than 2 decimals for EUR' }]);
  });

  it('400 naming a malformed field', async () => {
    const named = async (body: unknown) =>
      (await fieldsOf(await calculate(body))).map((field) => field.field);
    expect(await named({ productName: 'Personal 12', amount: '5000.00', term: 12.5 })).toEqual(['term']);
    expect(await named({ productName: 'Personal 12', amount: '-5', term: 12 })).toEqual(['amount']);
    expect(await named({ productName: 'Personal 12', term: 12 })).toEqual(['amount']);
    expect(
      await named({ productName: 'Personal 12', amount: '5000', term: 12, startDate: '2026-02-30' }),
    ).toEqual(['startDate']);
  });

  it('needs a front-office key', async () => {
    const body = { productName: 'Personal 12', amount: '5000.00', term: 12 };
    expect((await calculate(body, tenant.keys.paymentOptions)).status).toBe(403);
    const response = await fetch(lendingUrl(platform, '/Customer/Loans/Calculate'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(401);
  });
});

describe('operator: PUT /admin/lending/tenants/{tenantId}/credit-products/{name}', () => {
  const put = (tenantId: string, name: string, body: unknown) =>
    fetch(
      `${platform.apiUrl}/admin/lending/tenants/${tenantId}/credit-products/${encodeURIComponent(name)}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    );
  const product = {
    currency: 'EUR',
    secured: false,
    amount: { min: '100.00', max: '1000.00' },
    term: { min: 1, max: 12 },
    annualInterestRate: '20',
    amortisation: 'equal_principal',
  };

  it('creates, then replaces, a product that customers then see', async () => {
    const created = await put(otherTenant.tenantId, 'Small Loan', product);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      name: 'Small Loan',
      promoCodes: [],
      fees: { monthly: '0' },
    });
    const replaced = await put(otherTenant.tenantId, 'Small Loan', { ...product, promoCodes: ['small'] });
    expect(replaced.status).toBe(200);
    expect(
      await namesOf(await call(otherTenant.keys.frontOffice, 'GET', '/Customer/CreditProducts')),
    ).toEqual(['Elsewhere', 'Small Loan']);
    const check = await call(
      otherTenant.keys.frontOffice,
      'GET',
      '/Customer/PromoCode/Check?promoCode=SMALL',
    );
    expect(await check.json()).toMatchObject({ exists: true, productName: 'Small Loan' });
  });

  it('400 naming each offending field', async () => {
    const response = await put(otherTenant.tenantId, 'Bad Loan', {
      ...product,
      amount: { min: '1000.00', max: '100.00' },
      term: { min: 0, max: 12 },
    });
    expect((await fieldsOf(response)).map((field) => field.field).sort()).toEqual(['term.min']);
    const crossed = await put(otherTenant.tenantId, 'Bad Loan', {
      ...product,
      amount: { min: '1000.00', max: '100.00' },
    });
    expect((await fieldsOf(crossed)).map((field) => field.field)).toEqual(['amount.max']);
  });

  it('409 for a promo code of another product, or another product’s Name', async () => {
    const taken = await put(otherTenant.tenantId, 'Second', { ...product, promoCodes: ['other-1'] });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as ErrorAnswer).error).toMatchObject({
      code: 'credit_product_conflict',
      fields: [{ field: 'promoCodes.0', message: 'OTHER-1 is a promo code of another credit product' }],
    });
    const named = await put(otherTenant.tenantId, 'Second', { ...product, promoCodes: ['ELSEWHERE'] });
    expect(named.status).toBe(409);
  });

  it('404 for an unknown tenant', async () => {
    expect((await put('no-such-tenant', 'Small Loan', product)).status).toBe(404);
  });
});
