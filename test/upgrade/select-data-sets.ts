import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `npx tsx test/upgrade/select-data-sets.ts <RECORD_ROWS_DIR> test/upgrade/<version>`: of the databases
 * a recording run dumped (one file per test file's database), copies the fewest that together hold rows
 * of every table (greedy: most tables not yet covered first, the smaller file on a tie; files over 1 MB
 * only for tables no smaller file has rows of) as `rows-<n>.json`, and names any table no dump holds rows of.
 */
const [from, to] = process.argv.slice(2);
if (!from || !to) throw new Error('usage: select-data-sets.ts <recorded dir> <fixture dir>');

const dumps = readdirSync(from)
  .filter((file) => file.endsWith('.json'))
  .map((file) => {
    const document = JSON.parse(readFileSync(path.join(from, file), 'utf8')) as Record<string, unknown[]>;
    const filled = Object.entries(document)
      .filter(([, rows]) => rows.length > 0)
      .map(([table]) => table);
    return { file, size: statSync(path.join(from, file)).size, tables: Object.keys(document), filled };
  });
const everyTable = new Set(dumps.flatMap((dump) => dump.tables));
const covered = new Set<string>();
const chosen: typeof dumps = [];
const gain = (dump: (typeof dumps)[number]) => dump.filled.filter((table) => !covered.has(table)).length;
for (const limit of [1_000_000, Number.POSITIVE_INFINITY]) {
  for (;;) {
    const best = dumps
      .filter((dump) => dump.size <= limit && gain(dump) > 0)
      .sort((a, b) => gain(b) - gain(a) || a.size - b.size)[0];
    if (!best) break;
    chosen.push(best);
    for (const table of best.filled) covered.add(table);
  }
}
mkdirSync(to, { recursive: true });
chosen.forEach((dump, index) => {
  copyFileSync(path.join(from, dump.file), path.join(to, `rows-${index + 1}.json`));
  console.log(
    `rows-${index + 1}.json ← ${dump.file} (${dump.size} bytes, ${dump.filled.length} tables with rows)`,
  );
});
const missing = [...everyTable].filter((table) => !covered.has(table)).sort();
if (missing.length > 0) console.log(`no rows recorded for: ${missing.join(', ')}`);
