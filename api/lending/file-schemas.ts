import { z } from '@hono/zod-openapi';
import { errorBodySchema } from '../shared/errors.ts';
import { lendingErrorResponses } from './auth.ts';

/** Files and user documents as the API shows them (use cases: application/lending/files.ts, user-documents.ts). */

export const fileInfoSchema = z
  .object({
    fileId: z.string().openapi({ example: 'fil_3q2-7wEXAMPLEexample12' }),
    documentId: z.string().openapi({ description: 'The same id (GetInfo’s path parameter)' }),
    kind: z.enum(['upload', 'loan_document']).openapi({
      description:
        '`loan_document`: a loan’s system document (Management/Files only), id `loan-<loanId>-<docTypeId>`',
    }),
    fileName: z
      .string()
      .openapi({ description: 'As uploaded, made harmless (no folders, no control characters)' }),
    contentType: z.string().openapi({ example: 'application/pdf' }),
    size: z.number().int().openapi({ description: 'Bytes' }),
    sha256: z
      .string()
      .openapi({ description: 'Hex SHA-256 of the content (also the download’s Repr-Digest)' }),
    createdAt: z.string(),
    uploadedBy: z.enum(['customer', 'investor', 'management', 'system']),
    customerId: z.string().nullable(),
    loanId: z.string().optional(),
    docTypeId: z.string().optional(),
    status: z.string().optional().openapi({ description: 'A loan document: signed, declined or unsigned' }),
  })
  .openapi('LendingFileInfo');

/** The multipart body, documented only: it is streamed by the operation (api/lending/file-transfer.ts), not validated whole. */
export function uploadBody(withCustomer: boolean) {
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object' as const,
          required: ['file'],
          properties: {
            ...(withCustomer
              ? {
                  customerId: {
                    type: 'string' as const,
                    description: 'The customer the file is for (they own it then); sent before the file part',
                  },
                }
              : {}),
            file: {
              type: 'string' as const,
              format: 'binary',
              description: 'The file, with its Content-Type',
            },
          },
        },
      },
    },
  };
}

const refusal = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

export const uploadResponses = {
  201: { description: 'Stored', content: { 'application/json': { schema: fileInfoSchema } } },
  ...lendingErrorResponses,
  413: refusal('`file_too_large`: more than LENDING_FILE_MAX_BYTES'),
  415: refusal(
    '`file_type_not_allowed` (not in LENDING_FILE_TYPES), `file_type_mismatch` (the content is not of its type), ' +
      '`unsupported_media_type` (not multipart/form-data)',
  ),
};

export const fileInfoResponses = {
  200: { description: 'The file', content: { 'application/json': { schema: fileInfoSchema } } },
  ...lendingErrorResponses,
};

export const downloadResponses = {
  200: {
    description:
      'The content, streamed: its Content-Type, `Content-Disposition: attachment` with the file name (RFC 6266, ' +
      '`filename*` RFC 5987), `X-Content-Type-Options: nosniff`, `Repr-Digest` (SHA-256)',
    content: { 'application/octet-stream': { schema: { type: 'string' as const, format: 'binary' } } },
  },
  ...lendingErrorResponses,
};

export const documentIdParams = z.object({
  documentId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'documentId', in: 'path' }, example: 'fil_3q2-7wEXAMPLEexample12' }),
});

export const fileIdQuery = z.object({
  fileId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'fileId', in: 'query' }, example: 'fil_3q2-7wEXAMPLEexample12' }),
});

// --- User documents ---------------------------------------------------------------------------------

const userDocumentSchema = z
  .object({
    UserDocumentId: z
      .string()
      .openapi({ description: 'The spec’s key of a user document', example: 'udoc_Xk3EXAMPLEexample' }),
    groupId: z.string().openapi({ example: 'id-card' }),
    fileId: z.string(),
    attachedAt: z.string(),
    file: fileInfoSchema.pick({
      fileName: true,
      contentType: true,
      size: true,
      sha256: true,
      createdAt: true,
    }),
  })
  .openapi('LendingUserDocument');

export const userDocumentAnswerSchema = userDocumentSchema;

export const userDocumentsSchema = z
  .object({
    items: z.array(
      z.object({
        groupId: z.string().openapi({ example: 'id-card' }),
        name: z.string().openapi({ example: 'ID card' }),
        description: z.string().optional(),
        required: z.boolean().openapi({ description: 'A loan in view requires it' }),
        loanIds: z.array(z.string()).openapi({ description: 'The loans in view that require it' }),
        documents: z.array(userDocumentSchema),
      }),
    ),
    missingGroupIds: z.array(z.string()).openapi({ description: 'Required groups without a file yet' }),
  })
  .openapi('LendingUserDocuments');

const booleanQuery = (description: string) =>
  z
    .enum(['true', 'false', 'True', 'False'])
    .transform((value) => value.toLowerCase() === 'true')
    .openapi({ description, example: 'true' });

export const userDocumentsQuery = z.object({
  dashboardMode: booleanQuery('true: leave out groups neither required nor holding a file'),
  loanMode: booleanQuery(
    'true: only the groups of the loan `loanId` (or, without it, of the customer’s open loans); false: every group of the tenant’s products',
  ),
  loanId: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .openapi({ description: 'A loan of the customer', example: '1001' }),
});

export const attachUserDocumentBody = z
  .object({
    fileId: z.string().min(1).max(200).openapi({ description: 'A file the user uploaded (Files/Upload)' }),
    groupId: z.string().min(1).max(50).openapi({ example: 'id-card' }),
  })
  .openapi('LendingAttachUserDocument');
