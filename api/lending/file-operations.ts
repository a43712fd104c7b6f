import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { filesDownloadOperation } from './files/download.ts';
import { filesGetInfoOperation } from './files/get-info.ts';
import { filesUploadOperation } from './files/upload.ts';
import { managementFilesDownloadOperation } from './management/files-download.ts';
import { managementFilesGetInfoOperation } from './management/files-get-info.ts';
import { managementFilesUploadOperation } from './management/files-upload.ts';
import { userDocumentsDeleteOperation } from './user-documents-delete.ts';
import { userDocumentsGetOperation } from './user-documents-get.ts';
import { userDocumentsPutOperation } from './user-documents-put.ts';

/** Files (user's and management's, with the /Migration/ aliases) and user documents: docs/lending.md "Files and user documents". */
export const fileOperations: readonly Operation<LendingEnv>[] = [
  filesUploadOperation,
  filesGetInfoOperation,
  filesDownloadOperation,
  managementFilesUploadOperation,
  managementFilesGetInfoOperation,
  managementFilesDownloadOperation,
  userDocumentsGetOperation,
  userDocumentsPutOperation,
  userDocumentsDeleteOperation,
];
