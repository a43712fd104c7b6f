import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrationsFolder } from '../db/client.ts';
import { dbFolder, freezeRelease, manifestProblems, readManifest } from '../db/releases.ts';

/**
 * `npm run db:check` (part of `npm test`, so of CI): fails when
 *  - db/schema and db/migrations disagree: drizzle-kit generates against a copy of the migrations
 *    folder, and any migration it would add means a schema change without its migration;
 *  - a migration shipped in a release (db/releases.json) was edited, renamed, re-dated or removed, or
 *    package.json's version has no entry there.
 * `npm run db:check -- --freeze <version>` records the migrations not yet shipped as that release's.
 * No network, no database: drizzle-kit compares the schema files with the last snapshot.
 */

const root = path.dirname(dbFolder);
const manifestFile = path.join(dbFolder, 'releases.json');

/** The SQL drizzle-kit would add for a schema change that has no migration yet ('' when none). */
export function pendingSchemaChange(options: { migrations: string; schema: string; cwd: string }): string {
  const scratch = mkdtempSync(path.join(tmpdir(), 'db-check-'));
  try {
    const copy = path.join(scratch, 'migrations');
    cpSync(options.migrations, copy, { recursive: true });
    const before = new Set(readdirSync(copy));
    // drizzle-kit prefixes `--out` with './': it must be relative to the working directory.
    execFileSync(
      path.join(root, 'node_modules', '.bin', 'drizzle-kit'),
      [
        'generate',
        '--dialect',
        'postgresql',
        '--schema',
        options.schema,
        '--out',
        path.relative(options.cwd, copy),
        '--name',
        'db_check',
      ],
      { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    return readdirSync(copy)
      .filter((file) => !before.has(file) && file.endsWith('.sql'))
      .map((file) => readFileSync(path.join(copy, file), 'utf8'))
      .join('\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function main() {
  const { values } = parseArgs({ options: { freeze: { type: 'string' } } });
  if (values.freeze) {
    const release = freezeRelease(migrationsFolder, manifestFile, values.freeze);
    console.log(
      `release ${release.version}: ${release.migrations.map((m) => m.tag).join(', ') || 'no new migrations'}`,
    );
    return;
  }
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  const problems = manifestProblems(migrationsFolder, readManifest(manifestFile), version);
  const pending = pendingSchemaChange({
    migrations: migrationsFolder,
    schema: './db/schema/index.ts',
    cwd: root,
  });
  if (pending)
    problems.push(
      `db/schema has changes without a migration: run \`npm run db:generate -- --name <change>\`. It would add:\n${pending}`,
    );
  if (problems.length > 0) {
    console.error(`db:check failed:\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log('db:check: schema and migrations agree; shipped migrations unchanged');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(root, 'cmd', 'db-check.ts')) main();
