import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { and, eq, inArray } from 'drizzle-orm';
import {
  ContentTooLarge,
  type FileStorage,
  fileStorageOf,
  type StagedContent,
  verified,
} from '../../connectors/lending/file-storage.ts';
import { lendingUsers } from '../../db/schema/lending.ts';
import { lendingFiles } from '../../db/schema/lending-files.ts';
import {
  contentMatchesType,
  FILE_ID_PATTERN,
  mediaTypeOf,
  newFileId,
  SIGNATURE_BYTES,
  safeFileName,
  storageKeyOf,
} from '../../domain/lending/files.ts';
import { docTypeIds } from '../../domain/lending/loan-documents.ts';
import type { LendingUser } from '../../domain/lending/tenancy.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { documentsOfLoan } from './loan/documents.ts';
import { loanOf } from './loan/record.ts';

/**
 * Files (docs/lending.md "Files and user documents"): uploads kept in the file storage
 * (connectors/lending/file-storage.ts) with their metadata in lending_files; and, for management, the
 * loans' system documents as downloadable files. A user reaches the files they own; management (the
 * tenant's key) every file of the tenant. Anything else is 404.
 */

/** Who asks: a user (Files/*, their own files) or management (Management/Files/*, any file of the tenant). */
export interface FileCaller {
  tenantId: string;
  /** The user of the token; undefined for management. */
  user?: Pick<LendingUser, 'id' | 'role'> | undefined;
}

/** A file as GetInfo shows it. */
export interface FileInfo {
  fileId: string;
  /** The same id (the spec calls it documentId in GetInfo). */
  documentId: string;
  kind: 'upload' | 'loan_document';
  fileName: string;
  contentType: string;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
  createdAt: string;
  uploadedBy: 'customer' | 'investor' | 'management' | 'system';
  customerId: string | null;
  /** A loan document's loan and type, and whether the customer signed it. */
  loanId?: string;
  docTypeId?: string;
  status?: string;
}

type FileRow = typeof lendingFiles.$inferSelect;

const infoOf = (row: FileRow): FileInfo => ({
  fileId: row.id,
  documentId: row.id,
  kind: 'upload',
  fileName: row.fileName,
  contentType: row.contentType,
  size: row.size,
  sha256: row.sha256,
  createdAt: row.createdAt.toISOString(),
  uploadedBy: row.uploadedBy,
  customerId: row.customerId,
});

export interface Upload {
  /** The client's file name (shown only, made harmless). */
  fileName: string | undefined;
  /** The part's declared Content-Type. */
  contentType: string | undefined;
  content: Readable;
  /** Management: the customer the file is for (they own it then). */
  customerId?: string | undefined;
}

/** The staged content refused when its first bytes do not match its declared type. */
async function headOf(staged: StagedContent): Promise<Uint8Array> {
  const handle = await open(staged.path, 'r');
  try {
    const head = new Uint8Array(SIGNATURE_BYTES);
    const { bytesRead } = await handle.read(head, 0, SIGNATURE_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The customer's user, for a file management uploads for a customer (404 outside the tenant). */
async function ownerOfCustomer(deps: Pick<UseCaseDeps, 'db'>, tenantId: string, customerId: string) {
  const [user] = await deps.db
    .select({ id: lendingUsers.id })
    .from(lendingUsers)
    .where(and(eq(lendingUsers.tenantId, tenantId), eq(lendingUsers.customerId, customerId)))
    .limit(1);
  if (!user) throw Refusal.notFound('Customer');
  return user.id;
}

/**
 * Upload: the type checked against LENDING_FILE_TYPES first; the content staged and checksummed
 * (413 past LENDING_FILE_MAX_BYTES, 415 when its first bytes are not of its declared type), committed
 * under the file's key, and only then the row written. A failure at any step leaves no row; content
 * committed without a row is removed, or swept later (sweepOrphanFiles).
 */
export async function uploadFile(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'logger'> & { storage?: FileStorage | undefined },
  { caller, upload }: { caller: FileCaller; upload: Upload },
): Promise<FileInfo> {
  const storage = deps.storage ?? fileStorageOf(deps.config);
  const contentType = mediaTypeOf(upload.contentType);
  if (!deps.config.LENDING_FILE_TYPES.includes(contentType)) {
    upload.content.resume();
    throw new Refusal(415, 'file_type_not_allowed', 'The file’s type is not accepted', [
      {
        field: 'file',
        message: `is ${contentType || 'of no type'}; accepted: ${deps.config.LENDING_FILE_TYPES.join(', ')}`,
      },
    ]);
  }
  const customerId = caller.user ? undefined : upload.customerId;
  const ownerUserId =
    caller.user?.id ??
    (customerId
      ? await ownerOfCustomer(deps, caller.tenantId, customerId).catch((error: unknown) => {
          upload.content.resume(); // refused: the rest of the body is read and dropped
          throw error;
        })
      : null);
  const maxBytes = deps.config.LENDING_FILE_MAX_BYTES;
  let staged: StagedContent;
  try {
    staged = await storage.stage(upload.content, maxBytes);
  } catch (error) {
    if (error instanceof ContentTooLarge)
      throw new Refusal(413, 'file_too_large', `The file exceeds ${maxBytes} bytes`, [
        { field: 'file', message: `must be at most ${maxBytes} bytes (LENDING_FILE_MAX_BYTES)` },
      ]);
    throw error;
  }
  if (staged.size === 0 || !contentMatchesType(contentType, await headOf(staged))) {
    await storage.discard(staged);
    throw new Refusal(415, 'file_type_mismatch', 'The file’s content is not of its declared type', [
      { field: 'file', message: staged.size === 0 ? 'is empty' : `does not start as ${contentType} does` },
    ]);
  }
  const fileId = newFileId();
  const storageKey = storageKeyOf(fileId);
  try {
    await storage.commit(staged, storageKey);
  } catch (error) {
    await storage.discard(staged);
    throw error;
  }
  const row: FileRow = {
    id: fileId,
    tenantId: caller.tenantId,
    ownerUserId,
    customerId: customerId ?? (caller.user?.role === 'customer' ? await customerOfUser(deps, caller) : null),
    uploadedBy: caller.user ? caller.user.role : 'management',
    fileName: safeFileName(upload.fileName),
    contentType,
    size: staged.size,
    sha256: staged.sha256,
    storageKey,
    createdAt: new Date(),
  };
  try {
    await deps.db.insert(lendingFiles).values(row);
  } catch (error) {
    // No row: the committed content is an orphan; removed now, else by the sweep.
    await storage.remove(storageKey).catch((removal: unknown) => {
      deps.logger.warn({ err: removal, storageKey }, 'orphan file content left for the sweep');
    });
    throw error;
  }
  return infoOf(row);
}

async function customerOfUser(deps: Pick<UseCaseDeps, 'db'>, caller: FileCaller) {
  if (!caller.user) return null;
  const [user] = await deps.db
    .select({ customerId: lendingUsers.customerId })
    .from(lendingUsers)
    .where(and(eq(lendingUsers.tenantId, caller.tenantId), eq(lendingUsers.id, caller.user.id)))
    .limit(1);
  return user?.customerId ?? null;
}

/** The uploaded file the caller may reach (404 for another user's or tenant's, and for a malformed id). */
export async function fileOf(deps: Pick<UseCaseDeps, 'db'>, caller: FileCaller, fileId: string) {
  if (!FILE_ID_PATTERN.test(fileId)) throw Refusal.notFound('File');
  const [row] = await deps.db
    .select()
    .from(lendingFiles)
    .where(
      and(
        eq(lendingFiles.id, fileId),
        eq(lendingFiles.tenantId, caller.tenantId),
        ...(caller.user ? [eq(lendingFiles.ownerUserId, caller.user.id)] : []),
      ),
    )
    .limit(1);
  if (!row) throw Refusal.notFound('File');
  return row;
}

/** Uploaded files by id, of one user (UserDocuments lists them). */
export async function filesByIds(deps: Pick<UseCaseDeps, 'db'>, tenantId: string, fileIds: string[]) {
  if (fileIds.length === 0) return new Map<string, FileInfo>();
  const rows = await deps.db
    .select()
    .from(lendingFiles)
    .where(and(eq(lendingFiles.tenantId, tenantId), inArray(lendingFiles.id, fileIds)));
  return new Map(rows.map((row) => [row.id, infoOf(row)]));
}

// --- Loan documents as files (management) -----------------------------------------------------------

/** `loan-<loanId>-<docTypeId>`: a loan's system document as a file (Management/Files only). */
export const loanDocumentFileId = (loanId: string, docTypeId: string) => `loan-${loanId}-${docTypeId}`;

function parseLoanDocumentFileId(fileId: string) {
  const match = /^loan-(\d{1,20})-(.+)$/.exec(fileId);
  const docTypeId = match?.[2];
  if (!match || !docTypeIds.some((known) => known === docTypeId)) return undefined;
  return { loanId: match[1]!, docTypeId: docTypeId! };
}

/**
 * A loan's system document as a file: its text (UTF-8, exactly what the customer signs: its SHA-256 is
 * the document's contentHash), named `<loanId>-<docTypeId>.txt`.
 */
async function loanDocumentFile(deps: Pick<UseCaseDeps, 'db'>, tenantId: string, fileId: string) {
  const parsed = parseLoanDocumentFileId(fileId);
  if (!parsed) return undefined;
  const row = await loanOf(deps, { tenantId }, parsed.loanId).catch(() => undefined);
  if (!row) return undefined;
  const loan = await documentsOfLoan(deps.db, row);
  const document = loan.documents.find((candidate) => candidate.docTypeId === parsed.docTypeId);
  if (!document) return undefined;
  const content = Buffer.from(document.content, 'utf8');
  const decided = loan.decisions.get(document.docTypeId);
  const info: FileInfo = {
    fileId,
    documentId: fileId,
    kind: 'loan_document',
    fileName: `${row.loanId}-${document.docTypeId}.txt`,
    contentType: 'text/plain; charset=utf-8',
    size: content.length,
    sha256: document.contentHash.replace(/^sha256:/, ''),
    createdAt: (decided?.at ?? row.updatedAt).toISOString(),
    uploadedBy: 'system',
    customerId: row.customerId,
    loanId: row.loanId,
    docTypeId: document.docTypeId,
    status: decided?.decision ?? 'unsigned',
  };
  return { info, content };
}

/** GetInfo: an uploaded file the caller may reach, or (management) a loan's system document. */
export async function getFileInfo(
  deps: Pick<UseCaseDeps, 'db'>,
  { caller, fileId }: { caller: FileCaller; fileId: string },
): Promise<FileInfo> {
  if (!caller.user) {
    const document = await loanDocumentFile(deps, caller.tenantId, fileId);
    if (document) return document.info;
  }
  return infoOf(await fileOf(deps, caller, fileId));
}

/** Download: the file's information and its content, streamed from the storage. */
export async function openFile(
  deps: Pick<UseCaseDeps, 'db' | 'config'> & { storage?: FileStorage | undefined },
  { caller, fileId }: { caller: FileCaller; fileId: string },
): Promise<{ info: FileInfo; content: Readable }> {
  const storage = deps.storage ?? fileStorageOf(deps.config);
  if (!caller.user) {
    const document = await loanDocumentFile(deps, caller.tenantId, fileId);
    if (document) return { info: document.info, content: Readable.from([document.content]) };
  }
  const row = await fileOf(deps, caller, fileId);
  const content = await storage.read(row.storageKey);
  // A row always has its content (written first): its absence is the storage's fault, not the caller's.
  if (!content) throw new Refusal(503, 'file_unavailable', 'The file’s content cannot be read now');
  return { info: infoOf(row), content: verified(content, row.sha256, row.size) };
}

/**
 * Removes content without a row: staged leftovers and committed content whose row was never written
 * (a crash between the steps), older than `olderThanMs` (uploads in flight are younger). Answers the
 * keys removed.
 */
export async function sweepOrphanFiles(
  deps: Pick<UseCaseDeps, 'db' | 'config'> & { storage?: FileStorage | undefined },
  { olderThanMs = 3_600_000 }: { olderThanMs?: number | undefined } = {},
): Promise<string[]> {
  const storage = deps.storage ?? fileStorageOf(deps.config);
  const before = Date.now() - olderThanMs;
  const removed: string[] = [];
  for await (const entry of storage.list()) {
    if (entry.writtenAt.getTime() > before) continue;
    if (!entry.staged) {
      const [row] = await deps.db
        .select({ id: lendingFiles.id })
        .from(lendingFiles)
        .where(eq(lendingFiles.storageKey, entry.key))
        .limit(1);
      if (row) continue;
    }
    await storage.remove(entry.key);
    removed.push(entry.key);
  }
  return removed;
}
