import { and, asc, eq } from 'drizzle-orm';
import { lendingUsers } from '../../db/schema/lending.ts';
import { lendingUserDocuments } from '../../db/schema/lending-files.ts';
import {
  type CreditProduct,
  type DocumentGroup,
  requiredDocumentsOf,
} from '../../domain/lending/credit-products.ts';
import { newUserDocumentId } from '../../domain/lending/files.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findCreditProduct, listCreditProducts } from './credit-products.ts';
import { type FileInfo, fileOf, filesByIds } from './files.ts';
import { activeLoansOf, loanOf } from './loan/record.ts';
import type { LoanRow } from './loan/view.ts';

/**
 * User documents (docs/lending.md "Files and user documents"): the customer places uploaded files in
 * the document groups the tenant's credit products require (`requiredDocuments`); a loan whose product
 * requires groups is approved only once each has a file (`missingDocumentGroups`).
 */

/** The customer a user-documents request acts for. */
export interface UserDocumentsCaller {
  tenantId: string;
  userId: string;
  customerId: string;
}

export interface UserDocumentView {
  /** The spec's key of a user document (DELETE UserDocuments/{UserDocumentId}). */
  UserDocumentId: string;
  groupId: string;
  fileId: string;
  attachedAt: string;
  file: Pick<FileInfo, 'fileName' | 'contentType' | 'size' | 'sha256' | 'createdAt'>;
}

export interface DocumentGroupView extends DocumentGroup {
  /** A loan in view requires it (loanMode: the loan(s) asked about; else the customer's open loans). */
  required: boolean;
  /** The loans in view that require it. */
  loanIds: string[];
  documents: UserDocumentView[];
}

export interface UserDocumentsQuery {
  dashboardMode: boolean;
  loanMode: boolean;
  loanId?: string | undefined;
}

async function groupsOfLoan(
  deps: Pick<UseCaseDeps, 'db'>,
  row: LoanRow,
  known?: CreditProduct,
): Promise<DocumentGroup[]> {
  const product = known ?? (await findCreditProduct(deps.db, row.tenantId, row.productName));
  return product ? requiredDocumentsOf(product) : [];
}

/** The groups a loan's product requires that have no file of its customer (Approve names them). */
export async function missingDocumentGroups(
  deps: Pick<UseCaseDeps, 'db'>,
  row: LoanRow,
  /** The loan's product (named `row.productName`) when the caller has read it already. */
  product?: CreditProduct,
): Promise<DocumentGroup[]> {
  const groups = await groupsOfLoan(deps, row, product);
  if (groups.length === 0) return [];
  // Documents are the user's, loans the customer's: the customer's user links them.
  const attached = await deps.db
    .select({ groupId: lendingUserDocuments.groupId })
    .from(lendingUserDocuments)
    .innerJoin(lendingUsers, eq(lendingUsers.id, lendingUserDocuments.userId))
    .where(and(eq(lendingUserDocuments.tenantId, row.tenantId), eq(lendingUsers.customerId, row.customerId)));
  const present = new Set(attached.map((document) => document.groupId));
  return groups.filter((group) => !present.has(group.groupId));
}

async function documentsOfUser(deps: Pick<UseCaseDeps, 'db'>, caller: UserDocumentsCaller) {
  const rows = await deps.db
    .select()
    .from(lendingUserDocuments)
    .where(
      and(eq(lendingUserDocuments.tenantId, caller.tenantId), eq(lendingUserDocuments.userId, caller.userId)),
    )
    .orderBy(asc(lendingUserDocuments.createdAt));
  const files = await filesByIds(
    deps,
    caller.tenantId,
    rows.map((row) => row.fileId),
  );
  return rows.flatMap((row): UserDocumentView[] => {
    const file = files.get(row.fileId);
    if (!file) return [];
    const { fileName, contentType, size, sha256, createdAt } = file;
    return [
      {
        UserDocumentId: row.id,
        groupId: row.groupId,
        fileId: row.fileId,
        attachedAt: row.createdAt.toISOString(),
        file: { fileName, contentType, size, sha256, createdAt },
      },
    ];
  });
}

/** Every group the tenant's products define, by groupId (the first product by Name names it). */
async function groupsOfTenant(deps: Pick<UseCaseDeps, 'db'>, tenantId: string) {
  const groups = new Map<string, DocumentGroup>();
  for (const product of await listCreditProducts(deps, { tenantId })) {
    for (const group of requiredDocumentsOf(product))
      if (!groups.has(group.groupId)) groups.set(group.groupId, group);
  }
  return groups;
}

/**
 * GET UserDocuments: the groups in view with the customer's files in each. loanMode: the groups of
 * `loanId` (the customer's; 404 otherwise) or, without it, of the customer's open loans; else every
 * group of the tenant's products. dashboardMode leaves out groups that are neither required nor
 * hold a file.
 */
export async function listUserDocuments(
  deps: Pick<UseCaseDeps, 'db'>,
  { caller, ...query }: UserDocumentsQuery & { caller: UserDocumentsCaller },
): Promise<{ items: DocumentGroupView[]; missingGroupIds: string[] }> {
  const loans = query.loanId
    ? [await loanOf(deps, caller, query.loanId)]
    : await activeLoansOf(deps.db, caller.tenantId, caller.customerId);
  const requiredBy = new Map<string, string[]>();
  const inView = new Map<string, DocumentGroup>();
  for (const loan of loans) {
    for (const group of await groupsOfLoan(deps, loan)) {
      requiredBy.set(group.groupId, [...(requiredBy.get(group.groupId) ?? []), loan.loanId]);
      if (!inView.has(group.groupId)) inView.set(group.groupId, group);
    }
  }
  const documents = await documentsOfUser(deps, caller);
  if (!query.loanMode) {
    for (const [groupId, group] of await groupsOfTenant(deps, caller.tenantId))
      if (!inView.has(groupId)) inView.set(groupId, group);
    // Files in a group no product names any more stay visible (and removable).
    for (const document of documents)
      if (!inView.has(document.groupId))
        inView.set(document.groupId, { groupId: document.groupId, name: document.groupId });
  }
  const groups = [...inView.values()]
    .map((group) => ({
      ...group,
      required: requiredBy.has(group.groupId),
      loanIds: requiredBy.get(group.groupId) ?? [],
      documents: documents.filter((document) => document.groupId === group.groupId),
    }))
    .filter((group) => !query.dashboardMode || group.required || group.documents.length > 0);
  // The groups are the answer's list: `items`, as every list of lending's newer modules (decision 0086).
  return {
    items: groups,
    missingGroupIds: groups
      .filter((group) => group.required && group.documents.length === 0)
      .map((group) => group.groupId),
  };
}

/**
 * PUT UserDocuments: the user's uploaded file placed in a group of the tenant's products (400 naming
 * `groupId` for another group; 404 for a file not the user's). The same file in the same group again
 * answers the existing placement (`created: false`).
 */
export async function attachUserDocument(
  deps: Pick<UseCaseDeps, 'db'>,
  { caller, ...input }: { caller: UserDocumentsCaller; fileId: string; groupId: string },
): Promise<{ document: UserDocumentView; created: boolean }> {
  const groups = await groupsOfTenant(deps, caller.tenantId);
  if (!groups.has(input.groupId))
    throw Refusal.field('groupId', 'is not a document group of this tenant’s credit products');
  await fileOf(
    deps,
    { tenantId: caller.tenantId, user: { id: caller.userId, role: 'customer' } },
    input.fileId,
  );
  const inserted = await deps.db
    .insert(lendingUserDocuments)
    .values({
      id: newUserDocumentId(),
      tenantId: caller.tenantId,
      userId: caller.userId,
      groupId: input.groupId,
      fileId: input.fileId,
      createdAt: new Date(),
    })
    .onConflictDoNothing()
    .returning({ id: lendingUserDocuments.id });
  const documents = await documentsOfUser(deps, caller);
  const document = documents.find(
    (candidate) => candidate.groupId === input.groupId && candidate.fileId === input.fileId,
  );
  if (!document) throw Refusal.notFound('File');
  return { document, created: inserted.length > 0 };
}

/** DELETE UserDocuments/{UserDocumentId}: the file out of its group (the file itself stays). */
export async function removeUserDocument(
  deps: Pick<UseCaseDeps, 'db'>,
  { caller, userDocumentId }: { caller: UserDocumentsCaller; userDocumentId: string },
): Promise<void> {
  const removed = await deps.db
    .delete(lendingUserDocuments)
    .where(
      and(
        eq(lendingUserDocuments.id, userDocumentId),
        eq(lendingUserDocuments.tenantId, caller.tenantId),
        eq(lendingUserDocuments.userId, caller.userId),
      ),
    )
    .returning({ id: lendingUserDocuments.id });
  if (removed.length === 0) throw Refusal.notFound('User document');
}
