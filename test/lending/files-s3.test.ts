import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lending } from '../../application/lending/index.ts';
import { ContentTooLarge, S3FileStorage, s3ClientOf } from '../../connectors/lending/file-storage.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { download, fileStorageDir, pngBytes, sha256, storedFiles, upload } from './files-support.ts';
import { createLendingTenant, type LendingTestTenant, registerCustomer } from './support.ts';

/**
 * The S3-compatible file storage (LENDING_FILE_STORAGE=s3), against s3rver started on loopback on a
 * random port: uploads over HTTP land in the bucket under the platform's keys, checksummed, and come back
 * exactly; nothing is left staged.
 */

const BUCKET = 'lending-files';
let s3: S3rver;
let platform: TestPlatform;
let stagingRoot: string;
let tenant: LendingTestTenant;
let customer: Awaited<ReturnType<typeof registerCustomer>>;

beforeAll(async () => {
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: mkdtempSync(path.join(tmpdir(), 's3rver-')),
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await s3.run();
  stagingRoot = fileStorageDir();
  platform = await startTestPlatform({
    env: {
      LENDING_FILE_STORAGE: 's3',
      LENDING_FILE_DIR: stagingRoot,
      LENDING_S3_BUCKET: BUCKET,
      LENDING_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      LENDING_S3_FORCE_PATH_STYLE: 'true',
      LENDING_S3_PREFIX: 'platform/',
      // s3rver's published development credentials.
      LENDING_S3_ACCESS_KEY_ID: 'S3RVER',
      LENDING_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
  });
  tenant = await createLendingTenant(platform);
  customer = await registerCustomer(platform, tenant);
});
afterAll(async () => {
  await platform?.stop();
  await s3?.close();
});

describe('files in an S3-compatible bucket', () => {
  it('an upload is put in the bucket under files/<fileId> and downloads as the same bytes', async () => {
    const bytes = pngBytes(300_000);
    const stored = await upload(platform, {
      key: tenant.keys.frontOffice,
      token: customer.token,
      bytes,
      type: 'image/png',
      fileName: '../../payslip.png',
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    expect(stored.body.sha256).toBe(sha256(bytes));

    const client = s3ClientOf(platform.config);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'platform/' }));
    expect(listed.Contents?.map((object) => object.Key)).toContain(`platform/files/${stored.body.fileId}`);
    const object = await client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: `platform/files/${stored.body.fileId}` }),
    );
    expect(sha256(await object.Body!.transformToByteArray())).toBe(sha256(bytes));
    // Staged locally while it streamed, gone once in the bucket.
    expect(storedFiles(stagingRoot)).toEqual([]);

    const got = await download(platform, {
      key: tenant.keys.frontOffice,
      token: customer.token,
      fileId: stored.body.fileId,
    });
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
    expect(got.headers.get('content-type')).toBe('image/png');
  });

  it('the storage itself: a limit refuses and leaves nothing; read, remove, list and the sweep', async () => {
    const storage = new S3FileStorage(
      s3ClientOf(platform.config),
      BUCKET,
      'sweep-test/',
      path.join(stagingRoot, 'incoming'),
    );
    await expect(storage.stage(Readable.from([Buffer.alloc(1000)]), 999)).rejects.toBeInstanceOf(
      ContentTooLarge,
    );
    expect(storedFiles(stagingRoot)).toEqual([]);

    const staged = await storage.stage(Readable.from([Buffer.from('hello')]), 1000);
    expect(staged).toMatchObject({ size: 5, sha256: sha256(new TextEncoder().encode('hello')) });
    await storage.commit(staged, 'files/orphan-content');
    expect(await text((await storage.read('files/orphan-content'))!)).toBe('hello');
    expect(await storage.read('files/never-written')).toBeUndefined();

    // Content without a row (a crash between commit and the row) is swept; content with a row is not.
    const removed = await lending.sweepOrphanFiles({ ...platform, storage }, { olderThanMs: 0 });
    expect(removed).toEqual(['files/orphan-content']);
    expect(await storage.read('files/orphan-content')).toBeUndefined();
  });
});
