import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The migrations each release shipped (`db/releases.json`, decision 0048): a shipped migration is never
 * edited, renamed or re-dated, because databases created by that release have recorded it as applied.
 * `npm run db:check` holds the migrations folder to this manifest; `npm run db:check -- --freeze <version>`
 * adds a release's new migrations to it (docs/releasing.md).
 */

export const dbFolder = path.dirname(fileURLToPath(import.meta.url));

export interface ShippedMigration {
  /** The journal's tag, the SQL file's name without `.sql`. */
  tag: string;
  /** The journal's `when`: drizzle applies the migrations whose `when` is after the last one applied. */
  when: number;
  /** sha256 of the SQL file, hex. */
  sha256: string;
}

export interface Release {
  version: string;
  /** The migrations this release added (earlier releases' come before them). */
  migrations: ShippedMigration[];
}

export interface ReleaseManifest {
  releases: Release[];
}

export interface JournalEntry {
  idx: number;
  version: string;
  when: number;
  tag: string;
  breakpoints: boolean;
}

export interface Journal {
  version: string;
  dialect: string;
  entries: JournalEntry[];
}

export const readJournal = (migrationsFolder: string): Journal =>
  JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;

export const readManifest = (file: string): ReleaseManifest =>
  JSON.parse(readFileSync(file, 'utf8')) as ReleaseManifest;

export const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every migration shipped up to and including `version`, oldest first. */
export function migrationsUpTo(manifest: ReleaseManifest, version: string): ShippedMigration[] {
  const index = manifest.releases.findIndex((release) => release.version === version);
  if (index < 0) throw new Error(`release ${version} is not in the manifest`);
  return manifest.releases.slice(0, index + 1).flatMap((release) => release.migrations);
}

/**
 * Problems between the migrations folder and the manifest: a shipped migration missing, edited,
 * re-dated or out of order; a later migration dated before a shipped one (drizzle would skip it on
 * upgraded databases); `version` (package.json's) not in the manifest.
 */
export function manifestProblems(
  migrationsFolder: string,
  manifest: ReleaseManifest,
  version: string,
): string[] {
  const problems: string[] = [];
  const entries = readJournal(migrationsFolder).entries;
  const shipped = manifest.releases.flatMap((release) => release.migrations);
  shipped.forEach((migration, position) => {
    const entry = entries[position];
    if (!entry || entry.tag !== migration.tag) {
      problems.push(
        `shipped migration ${migration.tag} is not number ${position} of the journal (found ${entry?.tag ?? 'nothing'}): shipped migrations are never removed, renamed or reordered`,
      );
      return;
    }
    if (entry.when !== migration.when)
      problems.push(
        `shipped migration ${migration.tag} was re-dated (journal when ${entry.when}, shipped ${migration.when})`,
      );
    const file = path.join(migrationsFolder, `${migration.tag}.sql`);
    if (!existsSync(file)) problems.push(`shipped migration ${migration.tag}.sql is missing`);
    else if (sha256Of(file) !== migration.sha256)
      problems.push(
        `shipped migration ${migration.tag}.sql was edited (sha256 differs from db/releases.json): add a new migration instead`,
      );
  });
  const lastShipped = shipped.at(-1)?.when ?? 0;
  for (const entry of entries.slice(shipped.length)) {
    if (entry.when <= lastShipped)
      problems.push(
        `migration ${entry.tag} is dated ${entry.when}, not after the last shipped one (${lastShipped}): databases already upgraded would skip it`,
      );
  }
  entries.forEach((entry, position) => {
    if (entry.idx !== position)
      problems.push(`journal entry ${entry.tag} has idx ${entry.idx}, expected ${position}`);
    if (position > 0 && entry.when <= (entries[position - 1]?.when ?? 0))
      problems.push(`journal entry ${entry.tag} is not dated after the one before it`);
  });
  if (!manifest.releases.some((release) => release.version === version))
    problems.push(
      `version ${version} (package.json) is not in db/releases.json: freeze its migrations (docs/releasing.md)`,
    );
  return problems;
}

/** Adds every migration not yet shipped to a new release `version` of the manifest file. */
export function freezeRelease(migrationsFolder: string, manifestFile: string, version: string): Release {
  const manifest = readManifest(manifestFile);
  if (manifest.releases.some((release) => release.version === version))
    throw new Error(`release ${version} is already in ${manifestFile}`);
  const shipped = manifest.releases.flatMap((release) => release.migrations).length;
  const release: Release = {
    version,
    migrations: readJournal(migrationsFolder)
      .entries.slice(shipped)
      .map((entry) => ({
        tag: entry.tag,
        when: entry.when,
        sha256: sha256Of(path.join(migrationsFolder, `${entry.tag}.sql`)),
      })),
  };
  manifest.releases.push(release);
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return release;
}

/**
 * A migrations folder holding only `migrations` (a release's), for drizzle's migrator: the SQL files
 * and a journal of those entries (the migrator reads nothing else).
 */
export function writeMigrationsFolder(
  sourceFolder: string,
  targetFolder: string,
  migrations: readonly ShippedMigration[],
): void {
  const journal = readJournal(sourceFolder);
  const tags = new Set(migrations.map((migration) => migration.tag));
  mkdirSync(path.join(targetFolder, 'meta'), { recursive: true });
  for (const tag of tags)
    copyFileSync(path.join(sourceFolder, `${tag}.sql`), path.join(targetFolder, `${tag}.sql`));
  const entries = journal.entries.filter((entry) => tags.has(entry.tag));
  writeFileSync(
    path.join(targetFolder, 'meta', '_journal.json'),
    JSON.stringify({ ...journal, entries }, null, 2),
  );
}
