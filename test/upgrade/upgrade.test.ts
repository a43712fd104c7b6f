import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collect } from '../../application/collect/index.ts';
import { lending } from '../../application/lending/index.ts';
import { messaging } from '../../application/messaging/index.ts';
import { openbanking } from '../../application/openbanking/index.ts';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { migrationsFolder, openDatabase } from '../../db/client.ts';
import { migrationsUpTo, readManifest, writeMigrationsFolder } from '../../db/releases.ts';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { projectRoot } from '../support/import-graph.ts';
import { countDocumentRows, countRows, loadRows } from './rows.ts';

/**
 * The upgrade test (issue 22, docs/releasing.md): for every release with fixtures in
 * `test/upgrade/<version>/`, each recorded data set (rows of the tables written through the API at that
 * release, `<set>.json`) is loaded into a database holding only that release's migrations; today's
 * start-up path (`openDatabase`) then applies the migrations since, and every row must still be there
 * and the use cases must read what they read at the release (`answers.json`, recorded with the
 * release's code: `RECORD_UPGRADE_ANSWERS=1`). How to record: test/upgrade/README.md.
 */

const UPGRADE = path.join(projectRoot, 'test', 'upgrade');
const manifest = readManifest(path.join(projectRoot, 'db', 'releases.json'));
const releases = readdirSync(UPGRADE).filter((entry) => /^\d+\.\d+\.\d+$/.test(entry));
const dataSets = (release: string) =>
  readdirSync(path.join(UPGRADE, release))
    .filter((file) => file.endsWith('.json') && file !== 'answers.json')
    .map((file) => file.replace(/\.json$/, ''))
    .sort();

/**
 * Tables a release's recording left without rows, by release, each with its reason (test/upgrade/README.md).
 * 0.1.0: a bank's current maintenance notices are replaced at each directory refresh; no test leaves one.
 */
const NOT_RECORDED: Record<string, string[]> = { '0.1.0': ['ob_bank_maintenance_notices'] };

type Sql = postgres.Sql;
type Probe = (deps: UseCaseDeps, sql: Sql) => Promise<unknown>;

/** The first row a query finds, or nothing (a data set need not hold every kind of row). */
async function first<T extends Record<string, unknown>>(rows: Promise<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}

/** Reads through the use cases, each on a row the data set holds (ids picked in a stable order). */
const PROBES: Record<string, Probe> = {
  async 'lending customer, national id decrypted'(deps, sql) {
    const row = await first(sql<{ id: string; tenant_id: string }[]>`
      select id, tenant_id from lending_customers order by id limit 1`);
    return row && (await lending.readCustomer(deps, { tenantId: row.tenant_id, customerId: row.id }));
  },
  async 'lending loan, management view'(deps, sql) {
    // A loan not paid out: a paid-out loan's view marks instalments overdue by today's date.
    const row = await first(sql<{ loan_id: string; tenant_id: string }[]>`
      select l.loan_id, l.tenant_id from lending_loans l
      where not exists (select 1 from lending_loan_servicing s where s.tenant_id = l.tenant_id and s.loan_id = l.loan_id)
      order by l.tenant_id, l.loan_id limit 1`);
    return (
      row &&
      (await lending.readLoan(deps, {
        caller: { tenantId: row.tenant_id, actor: { role: 'management' } },
        loanId: row.loan_id,
      }))
    );
  },
  async 'lending servicing of a paid-out loan'(deps, sql) {
    const row = await first(sql<{ loan_id: string; tenant_id: string }[]>`
      select tenant_id, loan_id from lending_loan_servicing order by tenant_id, loan_id limit 1`);
    return (
      row &&
      (await lending.servicingView(deps, {
        tenantId: row.tenant_id,
        loanId: row.loan_id,
        today: '2026-11-27',
      }))
    );
  },
  async 'messaging message'(deps, sql) {
    const row = await first(sql<{ id: string; account_id: string }[]>`
      select id, account_id from messaging_messages order by id limit 1`);
    return row && (await messaging.getSms(deps, { accountId: row.account_id, id: row.id }));
  },
  async 'collect obligation'(deps, sql) {
    const row = await first(sql<{ idn: string }[]>`select idn from collect_obligations order by idn limit 1`);
    return row && (await collect.findObligation(deps, { idn: row.idn }));
  },
  async 'open-banking payment'(deps, sql) {
    const row = await first(sql<{ code: string; user_id: string; agent_id: string }[]>`
      select code, user_id, agent_id from ob_payments order by code limit 1`);
    return (
      row &&
      (await openbanking.readPayment(deps, {
        user: { userId: row.user_id, agentId: row.agent_id },
        code: row.code,
      }))
    );
  },
};

let temporal: Connection;
let deps: Omit<UseCaseDeps, 'db'>;
beforeAll(async () => {
  temporal = await Connection.connect({ address: inject('temporalAddress') });
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  deps = {
    temporal: new Client({ connection: temporal }),
    config,
    logger: createLogger('silent', { test: true }),
  };
});
afterAll(async () => {
  await temporal?.close();
});

describe('upgrade from every release', () => {
  it('has fixtures for the release of package.json’s version and only for released versions', () => {
    const released = manifest.releases.map((release) => release.version);
    expect(releases.filter((release) => !released.includes(release))).toEqual([]);
    const version = (
      JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }
    ).version;
    expect(releases).toContain(version);
  });

  it('the recorded rows of each release fill every table that release created', async () => {
    for (const release of releases) {
      const filled = new Set<string>();
      for (const set of dataSets(release)) {
        const document = JSON.parse(
          readFileSync(path.join(UPGRADE, release, `${set}.json`), 'utf8'),
        ) as Record<string, unknown[]>;
        for (const [table, rows] of Object.entries(document)) if (rows.length > 0) filled.add(table);
      }
      const database = await databaseAtRelease(release);
      try {
        const tables = Object.keys(await countRows(database.url));
        expect(
          tables.filter((table) => !filled.has(table) && !(NOT_RECORDED[release] ?? []).includes(table)),
          `${release}: tables without recorded rows`,
        ).toEqual([]);
      } finally {
        await database.drop();
      }
    }
  });

  for (const release of releases) {
    describe(`from ${release}`, () => {
      const answersFile = path.join(UPGRADE, release, 'answers.json');
      const recorded: Record<string, Record<string, unknown>> = existsSync(answersFile)
        ? JSON.parse(readFileSync(answersFile, 'utf8'))
        : {};
      const answers: Record<string, Record<string, unknown>> = {};
      afterAll(() => {
        if (process.env.RECORD_UPGRADE_ANSWERS)
          writeFileSync(answersFile, `${JSON.stringify(answers, null, 2)}\n`);
      });

      it('every read was recorded on some data set of the release', () => {
        const probed = new Set(Object.values(recorded).flatMap((read) => Object.keys(read)));
        expect(Object.keys(PROBES).filter((name) => !probed.has(name))).toEqual([]);
      });

      it.each(dataSets(release))(
        '%s: every row is still there, and reads answer as at the release',
        async (set) => {
          const document = readFileSync(path.join(UPGRADE, release, `${set}.json`), 'utf8');
          const database = await databaseAtRelease(release);
          try {
            await loadRows(database.url, document);
            const before = await countRows(database.url);
            const nonEmpty = (counts: Record<string, number>) =>
              Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
            expect(nonEmpty(before)).toEqual(nonEmpty(await countDocumentRows(database.url, document)));
            // Today's start-up path: the migrations since the release, under the lock.
            const handle = await openDatabase({ url: database.url, poolSize: 2 });
            const sql = postgres(database.url, { max: 1, onnotice: () => {} });
            try {
              const after = await countRows(database.url);
              for (const [table, n] of Object.entries(before)) expect(after[table], table).toBe(n);
              if (release === '0.1.0') {
                // Hooks and signup webhook URLs of 0.1.0 keep the bare JWS body their receivers expect (decision 0064).
                const formats = await sql<{ format: string }[]>`
                  select body_format as format from ob_hooks
                  union select webhook_body_format from ob_users`;
                expect(formats.filter((row) => row.format !== 'jose')).toEqual([]);
              }
              const read: Record<string, unknown> = {};
              for (const [name, probe] of Object.entries(PROBES)) {
                const answer = await probe({ ...deps, db: handle.db }, sql);
                if (answer !== undefined) read[name] = JSON.parse(JSON.stringify(answer));
              }
              answers[set] = read;
              if (!process.env.RECORD_UPGRADE_ANSWERS) {
                // `{}`: none of the probes' rows is in this data set (the release's recording says so).
                const expected = recorded[set];
                expect(expected, `${set}: answers recorded at ${release}`).toBeDefined();
                // Today's answers may carry more (new fields); what the release answered must not change.
                expect(read).toMatchObject(expected ?? {});
              }
            } finally {
              await sql.end();
              await handle.close();
            }
          } finally {
            await database.drop();
          }
        },
      );
    });
  }
});

/** A fresh database holding the migrations of `release` and of the releases before it, nothing later. */
async function databaseAtRelease(release: string): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const folder = mkdtempSync(path.join(tmpdir(), `migrations-${release}-`));
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    writeMigrationsFolder(migrationsFolder, folder, migrationsUpTo(manifest, release));
    await migrate(drizzle(sql), { migrationsFolder: folder });
    return database;
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    await sql.end();
    rmSync(folder, { recursive: true, force: true });
  }
}
