import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Config } from '../../platform/config.ts';

/**
 * Where the content of uploaded files is kept: outside the database, behind one interface (docs/lending.md
 * "Files and user documents"). Writing is two steps so that a crash never leaves a database row pointing
 * at missing content: `stage` writes the content under a temporary name and checksums it while it
 * streams; `commit` makes it permanent under the file's key (the metadata row is written after that).
 * Content staged or committed without a row (a crash between the steps) is orphaned: `sweep` removes
 * it (`npm run admin -- lending:files-sweep`).
 *
 * Keys are the platform's (`files/<fileId>`), never derived from a client's file name.
 */
export interface FileStorage {
  /** Streams `content` to a temporary place: its size and SHA-256; refused with ContentTooLarge past `maxBytes`. */
  stage(content: Readable, maxBytes: number): Promise<StagedContent>;
  /** The staged content, made permanent at `key`; the staged copy is gone. */
  commit(staged: StagedContent, key: string): Promise<void>;
  /** Forgets staged content (an upload refused or failed). Never throws. */
  discard(staged: StagedContent): Promise<void>;
  /** The content at `key`, streamed; undefined when there is none. */
  read(key: string): Promise<Readable | undefined>;
  remove(key: string): Promise<void>;
  /** Permanent keys (`files/…`) and staged leftovers (`incoming/…`, removable too), with when they were written. */
  list(): AsyncIterable<{ key: string; staged: boolean; writtenAt: Date }>;
}

export interface StagedContent {
  /** Where the staged bytes are (a local path: the staging folder is always local). */
  readonly path: string;
  readonly size: number;
  /** Hex SHA-256. */
  readonly sha256: string;
}

/** The content went past the size limit (the rest was not read). */
export class ContentTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the content exceeds ${maxBytes} bytes`);
    this.name = 'ContentTooLarge';
  }
}

const KEY_PATTERN = /^(files|incoming)\/[A-Za-z0-9_-]{1,100}$/;
const checkedKey = (key: string) => {
  if (!KEY_PATTERN.test(key)) throw new Error(`not a storage key: ${key.slice(0, 40)}`);
  return key;
};

/** Counts and hashes what passes; fails once more than `maxBytes` passed. */
function measuring(maxBytes: number) {
  const hash = createHash('sha256');
  let size = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new ContentTooLarge(maxBytes));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { transform, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * `content` passed through, failing at its end when it is not the `size` bytes of `sha256` it was
 * stored as: its last chunk is held back until the whole was checked, so damaged storage is never
 * served as a complete file (the download is cut short).
 */
export function verified(content: Readable, sha256: string, size: number): Readable {
  const hash = createHash('sha256');
  let seen = 0;
  let held: Buffer | undefined;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      hash.update(chunk);
      const previous = held;
      held = chunk;
      done(null, previous);
    },
    flush(done) {
      if (seen !== size || hash.digest('hex') !== sha256)
        return done(new Error('the stored content does not match its checksum'));
      done(null, held);
    },
  });
  content.on('error', (error) => check.destroy(error));
  return content.pipe(check);
}

/**
 * Writes `content` to a new file in `folder` (fsynced before it counts), checksummed on the way. A
 * failure (the client went away, the limit) removes the partial file.
 */
async function stageInFolder(folder: string, content: Readable, maxBytes: number): Promise<StagedContent> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const target = path.join(folder, `${Date.now()}-${randomBytes(12).toString('hex')}`);
  const measured = measuring(maxBytes);
  try {
    await pipeline(content, measured.transform, createWriteStream(target, { mode: 0o600, flags: 'wx' }));
    const handle = await open(target, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    return { path: target, ...measured.result() };
  } catch (error) {
    content.resume();
    await rm(target, { force: true });
    throw error;
  }
}

/** A folder on the local disk (default DATA_DIR/lending-files): `incoming/` staged, `files/` permanent. */
export class LocalFileStorage implements FileStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string) {
    return path.join(this.root, checkedKey(key));
  }

  stage(content: Readable, maxBytes: number) {
    return stageInFolder(path.join(this.root, 'incoming'), content, maxBytes);
  }

  async commit(staged: StagedContent, key: string) {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    // Same file system: the rename is atomic, the content appears whole or not at all.
    await rename(staged.path, target);
    const folder = await open(path.dirname(target), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  async discard(staged: StagedContent) {
    await rm(staged.path, { force: true }).catch(() => undefined);
  }

  async read(key: string) {
    const file = this.pathOf(key);
    try {
      await stat(file);
    } catch {
      return undefined;
    }
    return createReadStream(file);
  }

  async remove(key: string) {
    await rm(this.pathOf(key), { force: true });
  }

  async *list() {
    for (const [folder, staged] of [
      ['incoming', true],
      ['files', false],
    ] as const) {
      const names = await readdir(path.join(this.root, folder)).catch(() => [] as string[]);
      for (const name of names) {
        const info = await stat(path.join(this.root, folder, name)).catch(() => undefined);
        if (info) yield { key: `${folder}/${name}`, staged, writtenAt: info.mtime };
      }
    }
  }
}

/**
 * A bucket of an S3-compatible service. The content is staged in a local folder (checksummed while it
 * streams, so its length is known), then put whole at its key with its SHA-256 for the service to check:
 * an object appears complete or not at all.
 */
export class S3FileStorage implements FileStorage {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
    readonly stagingFolder: string,
  ) {}

  stage(content: Readable, maxBytes: number) {
    return stageInFolder(this.stagingFolder, content, maxBytes);
  }

  async commit(staged: StagedContent, key: string) {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.prefix + checkedKey(key),
        Body: createReadStream(staged.path),
        ContentLength: staged.size,
        ChecksumSHA256: Buffer.from(staged.sha256, 'hex').toString('base64'),
      }),
    );
    await this.discard(staged);
  }

  async discard(staged: StagedContent) {
    await rm(staged.path, { force: true }).catch(() => undefined);
  }

  async read(key: string) {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + checkedKey(key) }),
      );
      return answer.Body as Readable | undefined;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async remove(key: string) {
    if (checkedKey(key).startsWith('incoming/'))
      await rm(path.join(this.stagingFolder, key.slice('incoming/'.length)), { force: true });
    else await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }

  async *list() {
    const names = await readdir(this.stagingFolder).catch(() => [] as string[]);
    for (const name of names) {
      const info = await stat(path.join(this.stagingFolder, name)).catch(() => undefined);
      if (info) yield { key: `incoming/${name}`, staged: true, writtenAt: info.mtime };
    }
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${this.prefix}files/`,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key)
          yield {
            key: object.Key.slice(this.prefix.length),
            staged: false,
            writtenAt: object.LastModified ?? new Date(0),
          };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

/** The S3 client of the configuration (an endpoint other than AWS: path style, checksums when required). */
export function s3ClientOf(config: Config): S3Client {
  return new S3Client({
    region: config.LENDING_S3_REGION,
    ...(config.LENDING_S3_ENDPOINT ? { endpoint: config.LENDING_S3_ENDPOINT } : {}),
    forcePathStyle: config.LENDING_S3_FORCE_PATH_STYLE,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.LENDING_S3_ACCESS_KEY_ID && config.LENDING_S3_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: config.LENDING_S3_ACCESS_KEY_ID,
            secretAccessKey: config.LENDING_S3_SECRET_ACCESS_KEY,
          },
        }
      : {}),
  });
}

const storages = new WeakMap<Config, FileStorage>();

/** The storage LENDING_FILE_STORAGE names (one per configuration). */
export function fileStorageOf(config: Config): FileStorage {
  const known = storages.get(config);
  if (known) return known;
  const root = config.LENDING_FILE_DIR ?? path.join(config.DATA_DIR, 'lending-files');
  let storage: FileStorage;
  if (config.LENDING_FILE_STORAGE === 's3') {
    if (!config.LENDING_S3_BUCKET) throw new Error('LENDING_FILE_STORAGE=s3 needs LENDING_S3_BUCKET');
    storage = new S3FileStorage(
      s3ClientOf(config),
      config.LENDING_S3_BUCKET,
      config.LENDING_S3_PREFIX,
      path.join(root, 'incoming'),
    );
  } else storage = new LocalFileStorage(root);
  storages.set(config, storage);
  return storage;
}
