import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileInfo, lending } from '../../application/lending/index.ts';
import { LocalFileStorage, type StagedContent } from '../../connectors/lending/file-storage.ts';
import { lendingUsers } from '../../db/schema/lending.ts';
import { lendingFiles } from '../../db/schema/lending-files.ts';
import { contentDisposition, safeFileName } from '../../domain/lending/files.ts';
import { createLogger } from '../../platform/logger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  download,
  fileStorageDir,
  pdfBytes,
  pngBytes,
  sha256,
  storedFiles,
  upload,
} from './files-support.ts';
import {
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  lendingUrl,
  registerCustomer,
} from './support.ts';

/**
 * Files (docs/lending.md "Files and user documents"): uploads streamed into the file storage within
 * the configured limits, downloads of the exact bytes to their owner only, hostile names harmless, and
 * the upload order crash-safe (content stored and checksummed before its row; no row without content).
 */

const MAX_BYTES = 64 * 1024;
let platform: TestPlatform;
let storageDir: string;
let tenantA: LendingTestTenant;
let tenantB: LendingTestTenant;
let alice: Awaited<ReturnType<typeof registerCustomer>>;
let bob: Awaited<ReturnType<typeof registerCustomer>>;
let carol: Awaited<ReturnType<typeof registerCustomer>>;

beforeAll(async () => {
  storageDir = fileStorageDir();
  platform = await startTestPlatform({
    env: { LENDING_FILE_DIR: storageDir, LENDING_FILE_MAX_BYTES: String(MAX_BYTES) },
  });
  tenantA = await createLendingTenant(platform);
  tenantB = await createLendingTenant(platform);
  alice = await registerCustomer(platform, tenantA);
  bob = await registerCustomer(platform, tenantA);
  carol = await registerCustomer(platform, tenantB);
});
afterAll(async () => {
  await platform?.stop();
});

const rowsOf = (tenantId: string) =>
  platform.db.select().from(lendingFiles).where(eq(lendingFiles.tenantId, tenantId));

const aliceUploads = (bytes: Uint8Array, type = 'application/pdf', fileName = 'payslip.pdf') =>
  upload(platform, { key: tenantA.keys.frontOffice, token: alice.token, bytes, type, fileName });

describe('upload and download', () => {
  it('stores the file, describes it, and streams back exactly its bytes with safe headers', async () => {
    const bytes = pngBytes(MAX_BYTES);
    const stored = await aliceUploads(bytes, 'image/png', 'id card.png');
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    expect(stored.body).toMatchObject({
      kind: 'upload',
      fileName: 'id card.png',
      contentType: 'image/png',
      size: MAX_BYTES,
      sha256: sha256(bytes),
      uploadedBy: 'customer',
      customerId: alice.customerId,
    });
    expect(stored.body.fileId).toMatch(/^fil_/);
    expect(storedFiles(storageDir)).toContain(`files/${stored.body.fileId}`);

    const info = await lendingCall<FileInfo>(platform, 'GET', `/Files/GetInfo/${stored.body.fileId}`, {
      key: tenantA.keys.frontOffice,
      token: alice.token,
    });
    expect(info.status).toBe(200);
    expect(info.body).toEqual(stored.body);

    const got = await download(platform, {
      key: tenantA.keys.frontOffice,
      token: alice.token,
      fileId: stored.body.fileId,
    });
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
    expect(got.bytes.length).toBe(bytes.length);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="id card.png"; filename*=UTF-8''id%20card.png`,
    );
    expect(got.headers.get('repr-digest')).toBe(
      `sha-256=:${Buffer.from(sha256(bytes), 'hex').toString('base64')}:`,
    );
  });

  it('content damaged in the storage is never served as a complete file', async () => {
    const bytes = pdfBytes(5000, 'd');
    const stored = await aliceUploads(bytes);
    const damaged = Buffer.from(bytes);
    damaged[4000] = 0x21;
    writeFileSync(path.join(storageDir, 'files', stored.body.fileId), damaged);
    await expect(
      download(platform, { key: tenantA.keys.frontOffice, token: alice.token, fileId: stored.body.fileId }),
    ).rejects.toThrow();
  });

  it('management reaches every file of its tenant, also through the /Migration/ aliases', async () => {
    const stored = await aliceUploads(pdfBytes());
    for (const prefix of ['/Management', '/Migration']) {
      const info = await lendingCall<FileInfo>(
        platform,
        'GET',
        `${prefix}/Files/GetInfo/${stored.body.fileId}`,
        {
          key: tenantA.keys.management,
        },
      );
      expect(info.status).toBe(200);
      expect(info.body.sha256).toBe(stored.body.sha256);
      const got = await download(platform, {
        key: tenantA.keys.management,
        fileId: stored.body.fileId,
        path: `${prefix}/Files/Download`,
      });
      expect(sha256(got.bytes)).toBe(stored.body.sha256);
    }
  });

  it('management uploads a file for a customer, who then owns it; a customer of another tenant is 404', async () => {
    const bytes = pdfBytes(3000, 'm');
    for (const path of ['/Management/Files/Upload', '/Migration/Files/Upload']) {
      const stored = await upload(platform, {
        key: tenantA.keys.management,
        path,
        bytes,
        type: 'application/pdf',
        fileName: 'scan.pdf',
        fields: { customerId: bob.customerId },
      });
      expect(stored.status, JSON.stringify(stored.body)).toBe(201);
      expect(stored.body).toMatchObject({ uploadedBy: 'management', customerId: bob.customerId });
      const got = await download(platform, {
        key: tenantA.keys.frontOffice,
        token: bob.token,
        fileId: stored.body.fileId,
      });
      expect(sha256(got.bytes)).toBe(sha256(bytes));
    }
    const foreign = await upload(platform, {
      key: tenantA.keys.management,
      path: '/Management/Files/Upload',
      bytes,
      type: 'application/pdf',
      fileName: 'scan.pdf',
      fields: { customerId: carol.customerId },
    });
    expect(foreign.status).toBe(404);
  });
});

describe('limits', () => {
  it('a file over LENDING_FILE_MAX_BYTES is 413 file_too_large, and nothing is kept', async () => {
    const before = (await rowsOf(tenantA.tenantId)).length;
    const files = storedFiles(storageDir).length;
    const answer = await aliceUploads(pngBytes(MAX_BYTES + 1), 'image/png');
    expect(answer.status).toBe(413);
    expect(answer.body.error?.code).toBe('file_too_large');
    expect(answer.body.error?.fields?.[0]?.field).toBe('file');
    expect((await rowsOf(tenantA.tenantId)).length).toBe(before);
    expect(storedFiles(storageDir).length).toBe(files);
  });

  it('a type outside LENDING_FILE_TYPES is 415 file_type_not_allowed; content not of its type 415 file_type_mismatch', async () => {
    const html = new TextEncoder().encode('<html><script>alert(1)</script></html>');
    const notAllowed = await aliceUploads(html, 'text/html', 'page.html');
    expect(notAllowed.status).toBe(415);
    expect(notAllowed.body.error?.code).toBe('file_type_not_allowed');
    const disguised = await aliceUploads(html, 'image/png', 'page.png');
    expect(disguised.status).toBe(415);
    expect(disguised.body.error?.code).toBe('file_type_mismatch');
    const empty = await aliceUploads(new Uint8Array(0), 'application/pdf');
    expect(empty.status).toBe(415);
  });

  it('not multipart is 415; multipart without a file part is 400 naming file', async () => {
    const json = await lendingCall(platform, 'POST', '/Files/Upload', {
      key: tenantA.keys.frontOffice,
      token: alice.token,
      body: { file: 'x' },
    });
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('note', 'no file');
    const response = await fetch(lendingUrl(platform, '/Files/Upload'), {
      method: 'POST',
      headers: { lender_ApiKey: tenantA.keys.frontOffice, lender_UserAuthToken: alice.token },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(
      ((await response.json()) as { error: { fields: { field: string }[] } }).error.fields[0]?.field,
    ).toBe('file');
  });
});

describe('ownership', () => {
  it("another user's or another tenant's file is 404 for GetInfo and Download, never data", async () => {
    const stored = await aliceUploads(pdfBytes(1000, 's'));
    const fileId = stored.body.fileId;
    const attempts = [
      { key: tenantA.keys.frontOffice, token: bob.token, prefix: '/Files' },
      { key: tenantB.keys.frontOffice, token: carol.token, prefix: '/Files' },
      { key: tenantB.keys.management, prefix: '/Management/Files' },
      { key: tenantB.keys.management, prefix: '/Migration/Files' },
    ];
    for (const { key, token, prefix } of attempts) {
      const info = await lendingCall(platform, 'GET', `${prefix}/GetInfo/${fileId}`, {
        key,
        ...(token ? { token } : {}),
      });
      expect(info.status, `${prefix} GetInfo`).toBe(404);
      expect(JSON.stringify(info.body)).not.toContain(stored.body.sha256);
      const got = await download(platform, {
        key,
        ...(token ? { token } : {}),
        fileId,
        path: `${prefix}/Download`,
      });
      expect(got.status, `${prefix} Download`).toBe(404);
    }
    for (const fileId of ['fil_nope', '../../etc/passwd', 'loan-1-loan-agreement', `${'x'.repeat(200)}`]) {
      const got = await download(platform, {
        key: tenantA.keys.management,
        fileId,
        path: '/Management/Files/Download',
      });
      expect(got.status, fileId).toBe(404);
    }
  });
});

describe('hostile file names', () => {
  it('are kept harmless: no folders, no control characters, bounded; the storage key is the platform’s', async () => {
    const names = [
      '../../../../etc/passwd',
      '..\\..\\windows\\system32\\config.pdf',
      'a\u0001b\u001fc\u007f.pdf',
      'invoice\u202egpj.pdf',
      `${'long'.repeat(2000)}.pdf`,
      '"quoted";name=evil.pdf',
      'résumé 履歴書.pdf',
      '.hidden',
    ];
    for (const name of names) {
      const stored = await aliceUploads(pdfBytes(500), 'application/pdf', name);
      // Control characters in a part header do not parse (400, nothing stored); anything else is stored.
      if (/\p{Cc}/u.test(name) && stored.status === 400) {
        expect(stored.body.error?.fields?.[0]?.field).toBe('(body)');
        continue;
      }
      expect(stored.status, name).toBe(201);
      const { fileName, fileId } = stored.body;
      // As the browser sent it (FormData escapes quotes and line breaks), made harmless.
      expect(fileName, name).toBe(safeFileName(fileName));
      if (name.startsWith('../')) expect(fileName).toBe('passwd');
      expect(fileName).not.toMatch(/[/\\\p{Cc}\u202e]/u);
      expect([...fileName].length).toBeLessThanOrEqual(200);
      expect(storedFiles(storageDir)).toContain(`files/${fileId}`);
      const got = await download(platform, { key: tenantA.keys.frontOffice, token: alice.token, fileId });
      expect(got.status).toBe(200);
      expect(got.headers.get('content-disposition')).toBe(contentDisposition(fileName));
      expect(got.headers.get('content-disposition')).not.toMatch(/[\r\n]/);
    }
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('.hidden')).toBe('hidden');
    expect(safeFileName('\u0000\u0001')).toBe('file');
    expect(contentDisposition('résumé "1".pdf')).toBe(
      `attachment; filename="r_sum_ _1_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%221%22.pdf`,
    );
    // Only platform ids under files/ and nothing outside the storage folder.
    for (const entry of storedFiles(storageDir))
      expect(entry).toMatch(/^(files\/fil_[\w-]{22}|incoming\/[\w-]+)$/);
  });
});

describe('crash safety of the upload order', () => {
  const deps = () => ({
    db: platform.db,
    config: platform.config,
    logger: createLogger('silent', { test: true }),
  });
  const caller = () => ({ tenantId: tenantA.tenantId, user: { id: aliceUserId, role: 'customer' as const } });
  let aliceUserId: string;

  beforeAll(async () => {
    const [user] = await platform.db
      .select({ id: lendingUsers.id })
      .from(lendingUsers)
      .where(eq(lendingUsers.customerId, alice.customerId));
    aliceUserId = user!.id;
  });

  it('a storage failing after the content was written leaves no row; the sweep removes the orphan', async () => {
    class CrashAfterWrite extends LocalFileStorage {
      override async commit(staged: StagedContent, key: string) {
        await super.commit(staged, key);
        throw new Error('power cut after the content was written');
      }
    }
    const storage = new CrashAfterWrite(storageDir);
    const before = (await rowsOf(tenantA.tenantId)).length;
    await expect(
      lending.uploadFile(
        { ...deps(), storage },
        {
          caller: caller(),
          upload: {
            fileName: 'a.pdf',
            contentType: 'application/pdf',
            content: Readable.from([Buffer.from(pdfBytes(700))]),
          },
        },
      ),
    ).rejects.toThrow('power cut');
    expect((await rowsOf(tenantA.tenantId)).length).toBe(before);
    // Every row has its content; content without a row is swept.
    const orphans = await lending.sweepOrphanFiles({ ...deps(), storage }, { olderThanMs: 0 });
    expect(orphans.length).toBeGreaterThanOrEqual(1);
    for (const row of await rowsOf(tenantA.tenantId))
      expect(storedFiles(storageDir)).toContain(row.storageKey);
    expect(storedFiles(storageDir).filter((entry) => entry.startsWith('incoming/'))).toEqual([]);
  });

  it('a row the database refuses leaves no content behind', async () => {
    const storage = new LocalFileStorage(storageDir);
    const files = storedFiles(storageDir).length;
    await expect(
      lending.uploadFile(
        { ...deps(), storage },
        {
          caller: { tenantId: 'ten_does-not-exist', user: { id: aliceUserId, role: 'customer' } },
          upload: {
            fileName: 'a.pdf',
            contentType: 'application/pdf',
            content: Readable.from([Buffer.from(pdfBytes(700))]),
          },
        },
      ),
    ).rejects.toThrow();
    expect(storedFiles(storageDir).length).toBe(files);
  });

  it('a request killed mid-upload leaves no row and no staged content', async () => {
    const before = (await rowsOf(tenantA.tenantId)).length;
    const boundary = 'x-boundary-123';
    const url = new URL(lendingUrl(platform, '/Files/Upload'));
    await new Promise<void>((resolve) => {
      const request = httpRequest({
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          lender_ApiKey: tenantA.keys.frontOffice,
          lender_UserAuthToken: alice.token,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      });
      request.on('error', () => resolve());
      request.write(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="half.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
      );
      request.write(Buffer.from(pdfBytes(30_000)));
      // The client dies before the end of the body.
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 300);
    });
    await eventually(
      async () => (storedFiles(storageDir).some((entry) => entry.startsWith('incoming/')) ? undefined : true),
      10_000,
      'the staged content of the killed upload removed',
    );
    expect((await rowsOf(tenantA.tenantId)).length).toBe(before);
  });
});
