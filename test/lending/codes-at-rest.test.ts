import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { signingCodesSent, signLoanDocuments } from './documents-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  decidedLoan,
  type LendingTestTenant,
  lastEmailTo,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * One-time codes are never stored in clear (issue 20): after a customer signed a loan's documents with
 * SMS codes (through the messaging gateway) and reset a password by e-mail, no row of any table of the
 * database holds one of those codes, nor the text of the SMS. (The engine's storage is the payload
 * codec's: the messaging workflow's input carries the SMS text to the carrier, sealed by it.)
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

/** Every row of every table of the database, as text, with its table's name. */
async function everyRow(): Promise<{ table: string; text: string }[]> {
  const tables = (await platform.db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  )) as unknown as { table_name: string }[];
  const rows: { table: string; text: string }[] = [];
  for (const { table_name: table } of tables) {
    const found = (await platform.db.execute(
      sql`select t::text as text from ${sql.identifier(table)} t`,
    )) as unknown as { text: string }[];
    for (const { text } of found) rows.push({ table, text });
  }
  return rows;
}

describe('one-time codes at rest', () => {
  it('no table holds a signing code, the SMS that carried it, or a password reset code', async () => {
    const email = `codes-${Date.now()}@example.com`;
    const customer = await registerCustomer(platform, tenant, completeDetails({ email }));
    const call = (method: string, path: string, request = {}) =>
      lendingCall<LoanView>(platform, method, path, {
        key: tenant.keys.frontOffice,
        token: customer.token,
        ...request,
      });
    const created = await call('POST', '/Customer/Loans/Create', {
      body: { productName: 'Personal 12', amount: '3000.00', term: 12 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { loanId } = created.body;
    await decidedLoan(await call('POST', `/Customer/Loans/${loanId}/Process`), () =>
      call('GET', `/Customer/Loans/${loanId}`),
    );
    expect((await call('POST', `/Customer/Loans/${loanId}/AcceptLoanOffer`)).body.status).toBe(
      'Waiting for approval',
    );
    await signLoanDocuments(platform, tenant, customer.token, loanId);
    const signingCodes = systemDocumentTypes.flatMap(({ name }) => signingCodesSent(platform, loanId, name));
    expect(signingCodes).toHaveLength(2);
    const smsTexts = platform.sandbox.smpp.submitted
      .filter((sms) => sms.text.includes(`of loan ${loanId}`))
      .map((sms) => sms.text);

    await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login: customer.login },
    });
    const mail = await lastEmailTo(platform, tenant.tenantId, email);
    const resetCode = /\n([A-Za-z0-9_-]{43})\n/.exec(mail?.text ?? '')?.[1];
    expect(resetCode).toBeDefined();
    // Sealed, not in clear (the test opened it with the key).
    expect(mail?.body).not.toContain(resetCode);

    const rows = await everyRow();
    expect(rows.length).toBeGreaterThan(20);
    const holding = (needle: RegExp) =>
      rows.filter(({ text }) => needle.test(text)).map(({ table }) => table);
    for (const code of signingCodes) {
      // As a number of its own: not inside a longer number, an id, a digest or a timestamp's fraction.
      expect(holding(new RegExp(`(?<![0-9A-Za-z._:-])${code}(?![0-9A-Za-z_-])`)), code).toEqual([]);
    }
    for (const text of smsTexts) expect(rows.filter((row) => row.text.includes(text))).toEqual([]);
    expect(holding(new RegExp(resetCode!))).toEqual([]);

    // The codes worked: the documents are signed, and the reset code sets a password.
    const reset = await lendingCall(platform, 'POST', '/User/ResetPassword', {
      key: tenant.keys.frontOffice,
      query: { code: resetCode!, newPassword: 'a password after the reset' },
    });
    expect(reset.status).toBe(200);
  });
});
