import { bigint, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { lendingCustomers, lendingTenants, lendingUsers } from './lending.ts';

/**
 * Uploaded files (docs/lending.md "Files and user documents"): the metadata only. The content lives in
 * the file storage (connectors/lending/file-storage.ts) under `storageKey`, which the platform chose
 * (never the client's file name). A row is written only after its content is stored and checksummed,
 * so no row points at missing content.
 */
export const lendingFiles = pgTable(
  'lending_files',
  {
    /** `fil_…`: the spec's fileId and documentId. */
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    /** The user the file belongs to (the uploader, or the customer management uploaded it for); none: the tenant's. */
    ownerUserId: text('owner_user_id').references(() => lendingUsers.id),
    customerId: text('customer_id').references(() => lendingCustomers.id),
    /** Who uploaded it: `customer`, `investor` or `management`. */
    uploadedBy: text('uploaded_by').$type<'customer' | 'investor' | 'management'>().notNull(),
    /** The client's file name, made harmless (domain/lending/files.ts safeFileName): shown, never a path. */
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Hex SHA-256 of the content, computed while it was stored. */
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('lending_files_owner_idx').on(table.tenantId, table.ownerUserId),
    uniqueIndex('lending_files_storage_key_idx').on(table.storageKey),
  ],
);

/**
 * A file placed in a document group (UserDocuments): the groups are the ones the tenant's credit
 * products require (`requiredDocuments`); a file is in a group once.
 */
export const lendingUserDocuments = pgTable(
  'lending_user_documents',
  {
    /** `udoc_…`: the spec's UserDocumentId. */
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    userId: text('user_id')
      .notNull()
      .references(() => lendingUsers.id),
    groupId: text('group_id').notNull(),
    fileId: text('file_id')
      .notNull()
      .references(() => lendingFiles.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('lending_user_documents_user_idx').on(table.tenantId, table.userId),
    uniqueIndex('lending_user_documents_group_file_idx').on(table.userId, table.groupId, table.fileId),
  ],
);
