import { getTableColumns, getTableName, type SQL, sql, type Table } from 'drizzle-orm';

/**
 * A table's columns, each named with its table (`"table"."column"`). In a select list drizzle writes the
 * `${column}` of raw SQL bare, which inside a correlated sub-select names the sub-select's own table:
 * the columns of one are written with these instead.
 */
export function qualifiedColumns<T extends Table>(table: T): Record<keyof T['_']['columns'], SQL> {
  const name = sql.identifier(getTableName(table));
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [
      key,
      sql`${name}.${sql.identifier(column.name)}`,
    ]),
  ) as Record<keyof T['_']['columns'], SQL>;
}
