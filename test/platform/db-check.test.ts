import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pendingSchemaChange } from '../../cmd/db-check.ts';
import { migrationsFolder } from '../../db/client.ts';
import { type Journal, manifestProblems, readJournal, readManifest } from '../../db/releases.ts';
import { projectRoot } from '../support/import-graph.ts';

/** `npm run db:check` (decision 0048): what it holds the migrations folder to. */

const manifest = readManifest(path.join(projectRoot, 'db', 'releases.json'));
const version = (
  JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }
).version;

const scratches: string[] = [];
afterEach(() => {
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function copyOfMigrations() {
  const dir = mkdtempSync(path.join(tmpdir(), 'db-check-test-'));
  scratches.push(dir);
  cpSync(migrationsFolder, dir, { recursive: true });
  return dir;
}
const writeJournal = (folder: string, journal: Journal) =>
  writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal));

describe('db:check', () => {
  it('finds the migrations folder true to db/releases.json, and package.json’s version released there', () => {
    expect(manifestProblems(migrationsFolder, manifest, version)).toEqual([]);
  });

  it('fails when a shipped migration is edited', () => {
    const folder = copyOfMigrations();
    const first = manifest.releases[0]?.migrations[0]?.tag;
    writeFileSync(
      path.join(folder, `${first}.sql`),
      `${readFileSync(path.join(folder, `${first}.sql`), 'utf8')}\n-- edited\n`,
    );
    expect(manifestProblems(folder, manifest, version).join('\n')).toContain(`${first}.sql was edited`);
  });

  it('fails when a shipped migration is renamed, and when a later one is dated before it', () => {
    const folder = copyOfMigrations();
    const journal = readJournal(folder);
    const [first] = journal.entries;
    if (!first) throw new Error('no migrations');
    writeJournal(folder, {
      ...journal,
      entries: [{ ...first, tag: 'renamed' }, ...journal.entries.slice(1)],
    });
    expect(manifestProblems(folder, manifest, version).join('\n')).toContain(
      `shipped migration ${first.tag} is not number 0`,
    );
    const backdated = { ...first, idx: journal.entries.length, tag: '9999_backdated', when: first.when - 1 };
    writeJournal(folder, { ...journal, entries: [...journal.entries, backdated] });
    expect(manifestProblems(folder, manifest, version).join('\n')).toContain('9999_backdated is dated');
  });

  it('fails when package.json’s version has no release in the manifest', () => {
    expect(manifestProblems(migrationsFolder, manifest, '99.0.0').join('\n')).toContain('version 99.0.0');
  });

  it('finds db/schema and db/migrations in agreement, and a schema change without its migration', () => {
    const options = { schema: './db/schema/index.ts', cwd: projectRoot };
    expect(pendingSchemaChange({ ...options, migrations: migrationsFolder })).toBe('');
    // A migrations folder that lacks the last migration changing a table (custom ones after it, such as
    // triggers, leave the snapshot as it was): the schema has changes it does not hold.
    const folder = copyOfMigrations();
    const journal = readJournal(folder);
    const entries = [...journal.entries];
    let pending = '';
    while (pending === '' && entries.length > 1) {
      const last = entries.pop();
      writeJournal(folder, { ...journal, entries });
      rmSync(path.join(folder, `${last?.tag}.sql`));
      rmSync(path.join(folder, 'meta', `${String(last?.idx).padStart(4, '0')}_snapshot.json`));
      pending = pendingSchemaChange({ ...options, migrations: folder });
    }
    expect(pending).toMatch(/CREATE TABLE|ALTER TABLE/);
  });
});
