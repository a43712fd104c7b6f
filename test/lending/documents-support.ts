import { expect } from 'vitest';
import type { LoanView } from '../../application/lending/loans.ts';
import type { CustomerDetails } from '../../domain/lending/customers.ts';
import { docTypeIds, systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import {
  completeDetails,
  decidedLoan,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Signing a loan's system documents as a customer does (decision 0040): ask for a code, read it where
 * the customer would, at the phone, here the sandbox SMS carrier, and sign with it.
 */

/** The signing codes sent for one document of a loan, read at the sandbox SMSC (oldest first). */
export const signingCodesSent = (
  platform: Pick<TestPlatform, 'sandbox'>,
  loanId: string,
  documentName: string,
) =>
  platform.sandbox.smpp.submitted
    .filter((sms) => sms.text.includes(`the ${documentName} of loan ${loanId}`))
    .map((sms) => /^(\d{6}) is your code/.exec(sms.text)?.[1] ?? '');

/** Asks for a code for the document and resolves with it once the carrier has it. */
export async function requestSigningCode(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox'>,
  tenant: LendingTestTenant,
  token: string,
  loanId: string,
  docTypeId: string,
): Promise<string> {
  const name = documentNames[docTypeId] ?? docTypeId;
  const before = signingCodesSent(platform, loanId, name).length;
  const sent = await lendingCall(platform, 'POST', `/Customer/Loans/${loanId}/ResendSmsCode`, {
    key: tenant.keys.frontOffice,
    token,
    query: { docTypeId },
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return eventually(
    async () => signingCodesSent(platform, loanId, name)[before],
    15_000,
    `the code SMS for the ${name} of loan ${loanId}`,
  );
}

const documentNames: Record<string, string> = Object.fromEntries(
  systemDocumentTypes.map((type) => [type.docTypeId, type.name]),
);

/** Signs every system document of a loan waiting for approval (before management approves it). */
export async function signLoanDocuments(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox'>,
  tenant: LendingTestTenant,
  token: string,
  loanId: string,
): Promise<void> {
  for (const docTypeId of docTypeIds) {
    const code = await requestSigningCode(platform, tenant, token, loanId, docTypeId);
    const signed = await lendingCall(platform, 'POST', `/Customer/Loans/${loanId}/SignDocument`, {
      key: tenant.keys.frontOffice,
      token,
      query: { docTypeId, code },
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  }
}

/**
 * A loan of 3000 EUR applied for by a new complete customer, decided, its offer accepted and its documents
 * signed over the public API: Waiting for approval, ready for management's approval.
 */
export async function loanWaitingForApproval(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox'>,
  tenant: LendingTestTenant,
  details: CustomerDetails = completeDetails(),
): Promise<string> {
  const customer = await registerCustomer(platform, tenant, details);
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
  const processed = await decidedLoan(await call('POST', `/Customer/Loans/${loanId}/Process`), () =>
    call('GET', `/Customer/Loans/${loanId}`),
  );
  expect(processed.body.status).toBe('Offer confirmation');
  expect((await call('POST', `/Customer/Loans/${loanId}/AcceptLoanOffer`)).body.status).toBe(
    'Waiting for approval',
  );
  // Management approves once the documents are signed (decision 0040).
  await signLoanDocuments(platform, tenant, customer.token, loanId);
  return loanId;
}
