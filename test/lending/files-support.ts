import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FileInfo } from '../../application/lending/index.ts';
import type { TestPlatform } from '../support/platform.ts';
import { type LendingAnswer, lendingUrl } from './support.ts';

/** Test support of lending files: uploads as a front site sends them, and the storage folder's contents. */

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A fresh folder for the file storage of one test platform. */
export const fileStorageDir = () => mkdtempSync(path.join(tmpdir(), 'lending-files-test-'));

/** The bytes of a small valid-looking PDF (its signature and some text) of about `size` bytes. */
export function pdfBytes(size = 2048, fill = 'x'): Uint8Array {
  const head = '%PDF-1.7\n';
  return new TextEncoder().encode(head + fill.repeat(Math.max(0, size - head.length)));
}

/** PNG signature followed by random bytes. */
export function pngBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7919 + 13) % 256;
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

export interface UploadRequest {
  key: string;
  token?: string;
  bytes: Uint8Array;
  type: string;
  fileName: string;
  /** Text fields sent before the file (Management: customerId). */
  fields?: Record<string, string>;
  /** The spec path: /Files/Upload (default), /Management/Files/Upload, /Migration/Files/Upload. */
  path?: string;
}

/** POSTs a multipart upload as a browser would (FormData). */
export async function upload(
  platform: Pick<TestPlatform, 'apiUrl'>,
  request: UploadRequest,
): Promise<LendingAnswer<FileInfo>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(request.fields ?? {})) form.append(name, value);
  form.append('file', new Blob([request.bytes], { type: request.type }), request.fileName);
  const response = await fetch(lendingUrl(platform, request.path ?? '/Files/Upload'), {
    method: 'POST',
    headers: {
      lender_ApiKey: request.key,
      ...(request.token ? { lender_UserAuthToken: request.token } : {}),
    },
    body: form,
  });
  const text = await response.text();
  const body = (
    response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}
  ) as LendingAnswer<FileInfo>['body'];
  return { status: response.status, body, headers: response.headers };
}

/** GETs a download: the status, headers and the exact bytes. */
export async function download(
  platform: Pick<TestPlatform, 'apiUrl'>,
  request: { key: string; token?: string; fileId: string; path?: string },
) {
  const url = new URL(lendingUrl(platform, request.path ?? '/Files/Download'));
  url.searchParams.set('fileId', request.fileId);
  const response = await fetch(url, {
    headers: {
      lender_ApiKey: request.key,
      ...(request.token ? { lender_UserAuthToken: request.token } : {}),
    },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/** Every file under the storage folder, relative (`files/fil_…`, `incoming/…`). */
export function storedFiles(root: string): string[] {
  return ['files', 'incoming'].flatMap((folder) => {
    try {
      return readdirSync(path.join(root, folder)).map((name) => `${folder}/${name}`);
    } catch {
      return [];
    }
  });
}
