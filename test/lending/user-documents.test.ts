import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DocumentGroupView,
  FileInfo,
  LoanView,
  UserDocumentView,
} from '../../application/lending/index.ts';
import { stepOf } from '../../domain/lending/loan-lifecycle.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { customerLoanWaitingForApproval } from './documents-support.ts';
import { download, fileStorageDir, pdfBytes, sha256, upload } from './files-support.ts';
import { createCreditProduct } from './products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from './support.ts';

/**
 * User documents (docs/lending.md "Files and user documents"): the groups a tenant's credit products
 * require, the customer's files placed in them, and Approve refused (409 documents_missing naming the
 * groups) until each group of the loan's product holds a file. Also the loan's signed agreement as a
 * Management file.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;
let other: LendingTestTenant;

const ID_CARD = { groupId: 'id-card', name: 'ID card', description: 'Both sides' };
const INCOME = { groupId: 'proof-of-income', name: 'Proof of income' };

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LENDING_FILE_DIR: fileStorageDir() } });
  tenant = await createLendingTenant(platform);
  other = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId, { requiredDocuments: [ID_CARD, INCOME] });
  await createCreditProduct(platform, tenant.tenantId, {
    name: 'Small 6',
    requiredDocuments: [{ groupId: 'bank-statement', name: 'Bank statement' }],
  });
  await createCreditProduct(platform, other.tenantId, { requiredDocuments: [ID_CARD] });
});
afterAll(async () => {
  await platform?.stop();
});

type Customer = Awaited<ReturnType<typeof registerCustomer>>;

const asCustomer = (customer: Customer, t = tenant) => ({ key: t.keys.frontOffice, token: customer.token });

const listGroups = (customer: Customer, query: Record<string, string>) =>
  lendingCall<{ items: DocumentGroupView[]; missingGroupIds: string[] }>(platform, 'GET', '/UserDocuments', {
    ...asCustomer(customer),
    query,
  });

const uploadPdf = async (customer: Customer, t = tenant) => {
  const stored = await upload(platform, {
    ...asCustomer(customer, t),
    bytes: pdfBytes(800),
    type: 'application/pdf',
    fileName: 'doc.pdf',
  });
  expect(stored.status).toBe(201);
  return stored.body.fileId;
};

const attach = (customer: Customer, fileId: string, groupId: string) =>
  lendingCall<UserDocumentView>(platform, 'PUT', '/UserDocuments', {
    ...asCustomer(customer),
    body: { fileId, groupId },
  });

describe('document groups', () => {
  it('lists every group of the tenant’s products, the files placed in them, and what is missing', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const all = await listGroups(customer, { dashboardMode: 'false', loanMode: 'false' });
    expect(all.status).toBe(200);
    expect(all.body.items.map((group) => group.groupId).sort()).toEqual([
      'bank-statement',
      'id-card',
      'proof-of-income',
    ]);
    expect(all.body.items.every((group) => !group.required && group.documents.length === 0)).toBe(true);
    // Nothing required and nothing placed: the dashboard is empty.
    expect((await listGroups(customer, { dashboardMode: 'true', loanMode: 'false' })).body.items).toEqual([]);

    const fileId = await uploadPdf(customer);
    const placed = await attach(customer, fileId, 'id-card');
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body).toMatchObject({
      groupId: 'id-card',
      fileId,
      file: { contentType: 'application/pdf' },
    });
    // The same file in the same group again: the same placement.
    const again = await attach(customer, fileId, 'id-card');
    expect(again.status).toBe(200);
    expect(again.body.UserDocumentId).toBe(placed.body.UserDocumentId);
    // The spec's key of a user document, `UserDocumentId` (decision 0086; files came after 0.1.0).
    expect(placed.body.UserDocumentId).toMatch(/^udoc_/);
    expect(placed.body).not.toHaveProperty('userDocumentId');

    const dashboard = await listGroups(customer, { dashboardMode: 'true', loanMode: 'false' });
    // A list answers `{ items }`, here the groups (decision 0086).
    expect(Object.keys(dashboard.body).sort()).toEqual(['items', 'missingGroupIds']);
    expect(dashboard.body.items).toHaveLength(1);
    expect(dashboard.body.items[0]).toMatchObject({ ...ID_CARD, required: false, documents: [{ fileId }] });

    const removed = await lendingCall(
      platform,
      'DELETE',
      `/UserDocuments/${placed.body.UserDocumentId}`,
      asCustomer(customer),
    );
    expect(removed.status).toBe(204);
    expect((await listGroups(customer, { dashboardMode: 'true', loanMode: 'false' })).body.items).toEqual([]);
    // The file stays uploaded.
    const info = await lendingCall(platform, 'GET', `/Files/GetInfo/${fileId}`, asCustomer(customer));
    expect(info.status).toBe(200);
  });

  it('refuses a group no product names (400 naming groupId), and another user’s file or document (404)', async () => {
    const alice = await registerCustomer(platform, tenant);
    const bob = await registerCustomer(platform, tenant);
    const carol = await registerCustomer(platform, other);
    const aliceFile = await uploadPdf(alice);
    const unknown = await attach(alice, aliceFile, 'passport');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.fields?.[0]?.field).toBe('groupId');
    expect((await attach(bob, aliceFile, 'id-card')).status).toBe(404);
    // Another tenant's customer, even with a group of the same name.
    const carolAttach = await lendingCall(platform, 'PUT', '/UserDocuments', {
      key: other.keys.frontOffice,
      token: carol.token,
      body: { fileId: aliceFile, groupId: 'id-card' },
    });
    expect(carolAttach.status).toBe(404);
    const placed = await attach(alice, aliceFile, 'id-card');
    const bobDeletes = await lendingCall(
      platform,
      'DELETE',
      `/UserDocuments/${placed.body.UserDocumentId}`,
      asCustomer(bob),
    );
    expect(bobDeletes.status).toBe(404);
    const missingQuery = await lendingCall(platform, 'GET', '/UserDocuments', {
      ...asCustomer(alice),
      query: { loanMode: 'true' },
    });
    expect(missingQuery.status).toBe(400);
  });
});

describe('approval waits for the required documents (design row of the transition table)', () => {
  it('the row: an accepted offer with every system document signed but a group empty is refused documents_missing', () => {
    const facts = { offerAccepted: true, documentsSigned: true };
    expect(
      stepOf('approve', 'Waiting for approval', { ...facts, requiredDocumentsAttached: false }),
    ).toMatchObject({
      allowed: false,
      type: 'documents_missing',
    });
    expect(
      stepOf('approve', 'Waiting for approval', { ...facts, requiredDocumentsAttached: true }),
    ).toMatchObject({
      allowed: true,
      next: 'Approved',
    });
  });

  it('Approve is 409 naming the empty groups; once each holds a file the loan is Approved; its agreement is a file', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const loanId = await customerLoanWaitingForApproval(platform, tenant, customer);

    const inLoan = await listGroups(customer, { dashboardMode: 'false', loanMode: 'true', loanId });
    expect(inLoan.body.items.map((group) => group.groupId)).toEqual(['id-card', 'proof-of-income']);
    expect(inLoan.body.items.every((group) => group.required && group.loanIds.includes(loanId))).toBe(true);
    expect(inLoan.body.missingGroupIds).toEqual(['id-card', 'proof-of-income']);

    const approve = () =>
      lendingCall<LoanView>(platform, 'POST', `/Management/Loans/${loanId}/Approve`, {
        key: tenant.keys.management,
      });
    const refused = await approve();
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('documents_missing');
    expect(refused.body.error?.message).toContain('ID card (id-card)');
    expect(refused.body.error?.message).toContain('Proof of income (proof-of-income)');

    await attach(customer, await uploadPdf(customer), 'id-card');
    const stillRefused = await approve();
    expect(stillRefused.status).toBe(409);
    expect(stillRefused.body.error?.message).not.toContain('id-card');
    expect(stillRefused.body.error?.message).toContain('proof-of-income');

    await attach(customer, await uploadPdf(customer), 'proof-of-income');
    const open = await listGroups(customer, { dashboardMode: 'true', loanMode: 'true' });
    expect(open.body.missingGroupIds).toEqual([]);
    const approved = await approve();
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.status).toBe('Approved');

    // The signed agreement, as management downloads it: the exact text whose hash the signature binds.
    const documents = await lendingCall<{
      documents: { docTypeId: string; contentHash: string; status: string }[];
    }>(platform, 'GET', `/Customer/Loans/${loanId}/Documents`, asCustomer(customer));
    const agreement = documents.body.documents.find((document) => document.docTypeId === 'loan-agreement')!;
    const fileId = `loan-${loanId}-loan-agreement`;
    const info = await lendingCall<FileInfo>(platform, 'GET', `/Management/Files/GetInfo/${fileId}`, {
      key: tenant.keys.management,
    });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      kind: 'loan_document',
      loanId,
      status: 'signed',
      contentType: 'text/plain; charset=utf-8',
    });
    expect(`sha256:${info.body.sha256}`).toBe(agreement.contentHash);
    const got = await download(platform, {
      key: tenant.keys.management,
      fileId,
      path: '/Migration/Files/Download',
    });
    expect(got.status).toBe(200);
    expect(`sha256:${sha256(got.bytes)}`).toBe(agreement.contentHash);
    expect(new TextDecoder().decode(got.bytes)).toContain('LOAN AGREEMENT');
    expect(got.headers.get('content-disposition')).toContain(`${loanId}-loan-agreement.txt`);
    // Not through Files/* (the customer's files), nor another tenant's management.
    expect((await download(platform, { ...asCustomer(customer), fileId })).status).toBe(404);
    expect(
      (await download(platform, { key: other.keys.management, fileId, path: '/Management/Files/Download' }))
        .status,
    ).toBe(404);
  });
});
