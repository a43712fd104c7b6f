import { and, eq, isNotNull } from 'drizzle-orm';
import { expect } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { lendingSigningCodes } from '../../db/schema/lending-documents.ts';
import type { CustomerDetails } from '../../domain/lending/customers.ts';
import { type DocTypeId, docTypeIds, systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import {
  completeDetails,
  decidedLoan,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * Signing a loan's system documents as a customer does (decision 0040): the first code of each document
 * comes with the accepted offer (or ask for a new one), read where the customer would, at the phone,
 * here the sandbox SMS carrier, and signed with.
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

/**
 * Asks for a new code for the document and resolves with it once the carrier has it. Every code sent
 * before (the one of the acceptance too) is waited for at the carrier first, so the new one is the next.
 */
export async function requestSigningCode(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox' | 'db'>,
  tenant: LendingTestTenant,
  token: string,
  loanId: string,
  docTypeId: DocTypeId,
): Promise<string> {
  const name = documentNames[docTypeId] ?? docTypeId;
  const accepted = await platform.db
    .select({ id: lendingSigningCodes.id })
    .from(lendingSigningCodes)
    .where(
      and(
        eq(lendingSigningCodes.tenantId, tenant.tenantId),
        eq(lendingSigningCodes.loanId, loanId),
        eq(lendingSigningCodes.docTypeId, docTypeId),
        isNotNull(lendingSigningCodes.messageId),
      ),
    );
  const before = accepted.length;
  await eventually(
    async () => signingCodesSent(platform, loanId, name).length >= before || undefined,
    15_000,
    `the ${before} code SMS sent before for the ${name} of loan ${loanId}`,
  );
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

/** The first code of the document, sent when the offer was accepted, once the carrier has it. */
export const codeOfAcceptance = (
  platform: Pick<TestPlatform, 'sandbox'>,
  loanId: string,
  docTypeId: string,
) => {
  const name = documentNames[docTypeId] ?? docTypeId;
  return eventually(
    async () => signingCodesSent(platform, loanId, name)[0],
    15_000,
    `the code SMS for the ${name} of loan ${loanId} sent at acceptance`,
  );
};

/**
 * Signs every system document of a loan waiting for approval (before management approves it) with the
 * codes its acceptance sent: no ResendSmsCode.
 */
export async function signLoanDocuments(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox'>,
  tenant: LendingTestTenant,
  token: string,
  loanId: string,
): Promise<void> {
  for (const docTypeId of docTypeIds) {
    const code = await codeOfAcceptance(platform, loanId, docTypeId);
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
  return customerLoanWaitingForApproval(platform, tenant, await registerCustomer(platform, tenant, details));
}

/** As loanWaitingForApproval, for a customer registered already (complete details). */
export async function customerLoanWaitingForApproval(
  platform: Pick<TestPlatform, 'apiUrl' | 'sandbox'>,
  tenant: LendingTestTenant,
  customer: { token: string },
): Promise<string> {
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
