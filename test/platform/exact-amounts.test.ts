import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalAmountProblem } from '../../domain/decimal-amount.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from '../collect/epay-client.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from '../lending/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Amounts are exact decimal strings, taken as sent (decision 0085): one rule (domain/decimal-amount.ts)
 * for every service that accepts money. `" 10.00 "` is refused naming the field (400 in the JSON
 * services, BAD_FIELD AMOUNT in the ePay protocol), never trimmed and booked.
 */

describe('the rule', () => {
  it('accepts exact decimals within the field’s limits, and says what is wrong with anything else', () => {
    for (const good of ['10', '10.5', '10.00', '0.01', '999999999999999.99'])
      expect(decimalAmountProblem(good), good).toBeUndefined();
    expect(decimalAmountProblem('0', { min: 'non-negative' })).toBeUndefined();
    const cases: [string, string][] = [
      [' 10.00 ', 'must not have spaces around it'],
      ['10.00 ', 'must not have spaces around it'],
      ['\t10', 'must not have spaces around it'],
      ['0', 'must be more than 0'],
      ['0.00', 'must be more than 0'],
      ['-1', 'must be more than 0'],
      ['10,50', 'use a dot as the decimal separator'],
      ['1e3', 'must be a decimal amount like 12.50'],
      ['+5', 'must be a decimal amount like 12.50'],
      ['.5', 'must be a decimal amount like 12.50'],
      ['5.', 'must be a decimal amount like 12.50'],
      ['', 'must be a decimal amount like 12.50'],
      ['10.001', 'has more than 2 decimals'],
      ['1234567890123456', 'has more than 15 digits before the decimal point'],
    ];
    for (const [text, problem] of cases)
      expect(decimalAmountProblem(text), JSON.stringify(text)).toBe(problem);
  });
});

describe('over HTTP', () => {
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

  it('lending: an amount with spaces around it is 400 naming the field; the exact one is booked', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const create = (amount: string) =>
      lendingCall<{ loanId: string; amount: string }>(platform, 'POST', '/Customer/Loans/Create', {
        key: tenant.keys.frontOffice,
        token: customer.token,
        body: { productName: 'Personal 12', amount, term: 12 },
      });
    const spaced = await create(' 5000.00 ');
    expect(spaced.status, JSON.stringify(spaced.body)).toBe(400);
    expect(spaced.body.error?.fields).toEqual([
      { field: 'amount', message: 'must not have spaces around it' },
    ]);
    const exact = await create('5000.00');
    expect(exact.status, JSON.stringify(exact.body)).toBe(201);

    const collateral = await lendingCall(
      platform,
      'POST',
      `/Customer/Loans/${exact.body.loanId}/Collaterals`,
      {
        key: tenant.keys.frontOffice,
        token: customer.token,
        body: { kind: 'vehicle', description: 'Toyota Corolla 2019', value: '9500.00 ' },
      },
    );
    expect(collateral.status, JSON.stringify(collateral.body)).toBe(400);
    expect(collateral.body.error?.fields?.map((field) => field.field)).toEqual(['value']);
  });

  it('collect: AMOUNT with spaces around it in the packet is BAD_FIELD AMOUNT, nothing registered', async () => {
    const merchant = await platform.createMerchant({ name: 'Exact amounts merchant' });
    const bill = (amount: string) =>
      getText(
        `${platform.collectUrl}/office/reg_bill.cgi`,
        signedPacket(
          {
            MIN: merchant.min,
            INVOICE: newInvoice(),
            AMOUNT: amount,
            EXP_TIME: expTimeIn(86_400_000),
            ENCODING: 'utf-8',
          },
          merchant.secret,
        ),
      );
    const spaced = await bill(' 10.00 ');
    expect(spaced.fields.ERR, spaced.body).toBe('BAD_FIELD');
    expect(spaced.fields.FIELD, spaced.body).toBe('AMOUNT');
    expect(spaced.fields.IDN).toBeUndefined();
    const exact = await bill('10.00');
    expect(exact.status, exact.body).toBe(200);
    expect(exact.fields.IDN).toMatch(/^\d{10}$/);
  });
});
