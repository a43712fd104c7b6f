import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context } from 'hono';
import type { FileCaller, FileInfo, Upload } from '../../application/lending/index.ts';
import type { UserDocumentsCaller } from '../../application/lending/user-documents.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { contentDisposition } from '../../domain/lending/files.ts';
import { textProblem } from '../shared/input-guard.ts';
import { requireCustomer, requireUser } from './auth.ts';
import type { LendingEnv } from './context.ts';

/**
 * The HTTP side of files: a multipart upload read as a stream (busboy), never whole in memory; and a
 * download streamed with its type and a safe attachment name.
 */

/**
 * The upload of a `multipart/form-data` request: its text fields sent before the file (`fieldNames`
 * only), and the part named `file` as a stream. 415 for another body type; 400 naming `file` without
 * one, or for a body that does not parse.
 */
export function readUpload(c: Context<LendingEnv>, fieldNames: readonly string[] = []): Promise<Upload> {
  const type = c.req.header('content-type') ?? '';
  const body = c.req.raw.body;
  if (!/^multipart\/form-data\s*;/i.test(type) || !body) {
    return Promise.reject(
      new Refusal(415, 'unsupported_media_type', 'The upload is sent as multipart/form-data', [
        { field: '(body)', message: 'must be multipart/form-data with a part named file' },
      ]),
    );
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': type },
        defParamCharset: 'utf8',
        limits: { files: 1, fields: 10, fieldSize: 1000, parts: 12, headerPairs: 20 },
      });
    } catch {
      reject(Refusal.field('(body)', 'is not valid multipart/form-data'));
      return;
    }
    const fields: Record<string, string> = {};
    let fieldProblem: Refusal | undefined;
    let file: Readable | undefined;
    const source = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
    parser.on('field', (name, value) => {
      const problem = textProblem(name) ?? textProblem(value);
      if (problem) fieldProblem ??= Refusal.field('(body)', `a form field ${problem}`);
      else if (fieldNames.includes(name)) fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        return;
      }
      if (fieldProblem) {
        stream.resume();
        reject(fieldProblem);
        return;
      }
      file = stream;
      resolve({
        fileName: info.filename,
        contentType: info.mimeType,
        content: stream,
        customerId: fields.customerId,
      });
    });
    const fail = (error: unknown) => {
      // After the file began, its stream carries the failure (the storage discards what it staged).
      if (file) file.destroy(error instanceof Error ? error : new Error(String(error)));
      else reject(Refusal.field('(body)', 'is not valid multipart/form-data'));
    };
    parser.on('error', fail);
    parser.on('close', () => {
      if (!file) reject(fieldProblem ?? Refusal.field('file', 'is required: a part named file'));
    });
    source.on('error', (error) => {
      fail(error);
      parser.destroy();
    });
    source.pipe(parser);
  });
}

/** The download answer: the content streamed with its type, a safe attachment name, and no sniffing. */
export function fileAnswer(c: Context<LendingEnv>, info: FileInfo, content: Readable): Response {
  return c.body(Readable.toWeb(content) as ReadableStream<Uint8Array>, 200, {
    'content-type': info.contentType,
    'content-length': String(info.size),
    'content-disposition': contentDisposition(info.fileName),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
    // RFC 9530: what the bytes hash to (the same as GetInfo's sha256).
    'repr-digest': `sha-256=:${Buffer.from(info.sha256, 'hex').toString('base64')}:`,
  });
}

/** A user's file request (Files/*): their own files only. */
export function userFileCaller(c: Context<LendingEnv>): FileCaller {
  const { id, role } = requireUser(c);
  return { tenantId: c.get('lendingTenant').id, user: { id, role } };
}

/** Management's file request (Management/Files/*): any file of the tenant and the loans' documents. */
export function managementFileCaller(c: Context<LendingEnv>): FileCaller {
  return { tenantId: c.get('lendingTenant').id };
}

/** A customer's user-documents request (UserDocuments). */
export function userDocumentsCaller(c: Context<LendingEnv>): UserDocumentsCaller {
  const user = requireCustomer(c);
  return { tenantId: c.get('lendingTenant').id, userId: user.id, customerId: user.customerId };
}
