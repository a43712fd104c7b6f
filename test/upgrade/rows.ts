import postgres from 'postgres';

/**
 * Every row of every table of a database, as one JSON document `{ "<table>": [rows...] }` written by
 * PostgreSQL itself (jsonb: numerics, timestamps and bytea keep their exact text; JavaScript never parses
 * a value), and the way back: the upgrade fixtures of test/upgrade/<release>/ are such documents.
 */

type Sql = postgres.Sql;

async function tables(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
  return rows.map((row) => row.name);
}

/** Tables in an order that inserts every referenced row before the rows that reference it. */
async function insertionOrder(sql: Sql): Promise<string[]> {
  const all = await tables(sql);
  const edges = await sql<{ child: string; parent: string }[]>`
    select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where c.contype = 'f' and n.nspname = 'public'`;
  const parents = new Map<string, Set<string>>(all.map((table) => [table, new Set<string>()]));
  for (const { child, parent } of edges) {
    const name = (table: string) => table.replace(/^"|"$/g, '');
    if (name(child) !== name(parent)) parents.get(name(child))?.add(name(parent));
  }
  const ordered: string[] = [];
  const visit = (table: string, path: string[]) => {
    if (ordered.includes(table)) return;
    if (path.includes(table)) throw new Error(`foreign keys form a cycle: ${[...path, table].join(' → ')}`);
    for (const parent of parents.get(table) ?? []) visit(parent, [...path, table]);
    ordered.push(table);
  };
  for (const table of all) visit(table, []);
  return ordered;
}

/** The rows of every table of the database at `url`, as a JSON document (one table per key, sorted). */
export async function dumpRows(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const parts: string[] = [];
    for (const table of await tables(sql)) {
      const [row] = await sql<{ rows: string }[]>`
        select jsonb_pretty(coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb)) as rows from ${sql(table)} t`;
      parts.push(`${JSON.stringify(table)}: ${row?.rows ?? '[]'}`);
    }
    return `{\n${parts.join(',\n')}\n}\n`;
  } finally {
    await sql.end();
  }
}

/**
 * Inserts a document of `dumpRows` into the database at `url` (whose tables must have the columns the
 * document was dumped with), parents before children, then moves each serial column's sequence past the
 * highest id loaded so that new rows get new ids.
 */
export async function loadRows(url: string, document: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`create temporary table upgrade_fixture (doc jsonb not null) on commit drop`;
      await tx`insert into upgrade_fixture (doc) values (${document}::text::jsonb)`;
      const [keys] = await tx<{ keys: string[] }[]>`
        select coalesce(array_agg(k), '{}') as keys from upgrade_fixture, jsonb_object_keys(doc) k`;
      const order = await insertionOrder(tx as unknown as Sql);
      const unknown = (keys?.keys ?? []).filter((table) => !order.includes(table));
      if (unknown.length > 0)
        throw new Error(`the fixture has tables the database lacks: ${unknown.join(', ')}`);
      for (const table of order) {
        await tx.unsafe(
          `insert into "${table}" overriding system value
           select * from jsonb_populate_recordset(null::"${table}", (select doc -> $1 from upgrade_fixture))
           where (select doc ? $1 from upgrade_fixture)`,
          [table],
        );
      }
      const serials = await tx<{ table: string; column: string; sequence: string }[]>`
        select c.table_name as table, c.column_name as column,
               pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as sequence
        from information_schema.columns c
        where c.table_schema = 'public'
          and pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) is not null`;
      for (const { table, column, sequence } of serials) {
        await tx.unsafe(
          `select setval($1, coalesce((select max("${column}") from "${table}"), 0) + 1, false)`,
          [sequence],
        );
      }
    });
  } finally {
    await sql.end();
  }
}

/** The number of rows of every table of the database at `url`. */
export async function countRows(url: string): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const counts: Record<string, number> = {};
    for (const table of await tables(sql)) {
      const [row] = await sql<{ n: string }[]>`select count(*)::text as n from ${sql(table)}`;
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  } finally {
    await sql.end();
  }
}

/** The number of rows of every table in a document of `dumpRows`, counted by PostgreSQL. */
export async function countDocumentRows(url: string, document: string): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ table: string; n: number }[]>`
      select key as table, jsonb_array_length(value) as n from jsonb_each(${document}::text::jsonb)`;
    return Object.fromEntries(rows.map((row) => [row.table, row.n]));
  } finally {
    await sql.end();
  }
}
