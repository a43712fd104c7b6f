import { DrizzleQueryError } from 'drizzle-orm/errors';
import { PgDatabase, PgPreparedQuery } from 'drizzle-orm/pg-core';

/**
 * Database errors without the values of the query (issue 20): Drizzle's `DrizzleQueryError` puts
 * `params: <every value>` in its message, and PostgreSQL's own message and `detail` may quote a value
 * (`invalid input syntax for type uuid: "…"`, `Key (email)=(…) already exists`, `Failing row contains
 * (…)`). Messages travel far: into log lines, and into Temporal's failure of an activity (its message,
 * stack and causes are kept in the workflow's history). So every query error is replaced where Drizzle
 * throws it, by a DatabaseQueryError whose message is the query text (with `$1` placeholders) and what
 * the server said in names only: the SQLSTATE, its condition, the constraint, table, column and type.
 * The logger's serializer (platform/logger.ts) redacts what reaches it by another road.
 */

/** The condition names of the SQLSTATEs a read model meets most (PostgreSQL, Appendix A). */
const CONDITIONS: Record<string, string> = {
  '22001': 'string_data_right_truncation',
  '22003': 'numeric_value_out_of_range',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22012': 'division_by_zero',
  '22021': 'character_not_in_repertoire',
  '22P02': 'invalid_text_representation',
  '22P05': 'untranslatable_character',
  '22030': 'duplicate_json_object_key_value',
  '22032': 'invalid_json_text',
  '23502': 'not_null_violation',
  '23503': 'foreign_key_violation',
  '23505': 'unique_violation',
  '23514': 'check_violation',
  '23P01': 'exclusion_violation',
  '40001': 'serialization_failure',
  '40P01': 'deadlock_detected',
  '42P01': 'undefined_table',
  '42703': 'undefined_column',
  '53300': 'too_many_connections',
  '57014': 'query_canceled',
};

/** The classes of the others (the first two characters). */
const CLASSES: Record<string, string> = {
  '08': 'connection exception',
  '22': 'data exception',
  '23': 'integrity constraint violation',
  '25': 'invalid transaction state',
  '40': 'transaction rollback',
  '42': 'syntax error or access rule violation',
  '53': 'insufficient resources',
  '54': 'program limit exceeded',
  '55': 'object not in prerequisite state',
  '57': 'operator intervention',
  '58': 'system error',
  XX: 'internal error',
};

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** What a server error names, under postgres.js's property names (PGlite's are mapped to them). */
export interface DatabaseErrorFields {
  code: string;
  severity?: string;
  schema_name?: string;
  table_name?: string;
  column_name?: string;
  data_type_name?: string;
  constraint_name?: string;
  routine?: string;
}

/** `SQLSTATE <code> <condition> (table "…", column "…", type "…", constraint "…")`: names, never a value. */
export function sqlStateDescription(fields: DatabaseErrorFields): string {
  const condition = CONDITIONS[fields.code] ?? CLASSES[fields.code.slice(0, 2)] ?? 'error';
  const names = [
    fields.table_name && `table "${fields.table_name}"`,
    fields.column_name && `column "${fields.column_name}"`,
    fields.data_type_name && `type "${fields.data_type_name}"`,
    fields.constraint_name && `constraint "${fields.constraint_name}"`,
  ].filter(Boolean);
  return `SQLSTATE ${fields.code} ${condition}${names.length > 0 ? ` (${names.join(', ')})` : ''}`;
}

/** A PostgreSQL error as the platform passes it on: its SQLSTATE and the names, never a value. */
export class DatabaseError extends Error implements DatabaseErrorFields {
  readonly code: string;
  declare readonly severity?: string;
  declare readonly schema_name?: string;
  declare readonly table_name?: string;
  declare readonly column_name?: string;
  declare readonly data_type_name?: string;
  declare readonly constraint_name?: string;
  declare readonly routine?: string;

  constructor(fields: DatabaseErrorFields) {
    super(sqlStateDescription(fields));
    this.name = 'DatabaseError';
    Object.assign(this, fields);
    this.code = fields.code;
  }
}

/** A failed query: its text (placeholders, no values) and the server's error as a DatabaseError cause. */
export class DatabaseQueryError extends Error {
  readonly code: string | undefined;

  constructor(
    readonly query: string,
    cause: unknown,
  ) {
    super(`Failed query: ${query}${cause instanceof DatabaseError ? `\n${cause.message}` : ''}`, { cause });
    this.name = 'DatabaseQueryError';
    this.code = cause instanceof DatabaseError ? cause.code : undefined;
  }
}

type ServerError = Record<string, unknown> & { code: string; severity: string };

/** A PostgreSQL server error from postgres.js (PostgresError) or PGlite (pg-protocol's DatabaseError). */
function isServerError(error: unknown): error is ServerError {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as unknown as Record<string, unknown>;
  return typeof code === 'string' && SQLSTATE.test(code) && typeof severity === 'string';
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function fieldsOf(error: ServerError): DatabaseErrorFields {
  const fields: DatabaseErrorFields = { code: error.code };
  const copy = (to: Exclude<keyof DatabaseErrorFields, 'code'>, ...from: string[]) => {
    const value = from.map((key) => text(error[key])).find((found) => found !== undefined);
    if (value !== undefined) fields[to] = value;
  };
  copy('severity', 'severity');
  copy('schema_name', 'schema_name', 'schema');
  copy('table_name', 'table_name', 'table');
  copy('column_name', 'column_name', 'column');
  copy('data_type_name', 'data_type_name', 'dataType');
  copy('constraint_name', 'constraint_name', 'constraint');
  copy('routine', 'routine');
  return fields;
}

/** Keeps the frames of `from`'s stack under a header of `to`'s own (a message line may quote values). */
function withFramesOf<T extends Error>(to: T, from: unknown): T {
  const frames = (from instanceof Error ? (from.stack ?? '') : '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line));
  to.stack = [`${to.name}: ${to.message}`, ...frames].join('\n');
  return to;
}

/**
 * The error to pass on instead of `error`: a Drizzle query error or a server error without values.
 * Anything else (the application's own errors, a lost connection) is returned as it is.
 */
export function withoutQueryValues(error: unknown): unknown {
  if (error instanceof DrizzleQueryError) {
    const cause = isServerError(error.cause)
      ? withFramesOf(new DatabaseError(fieldsOf(error.cause)), error.cause)
      : error.cause;
    return withFramesOf(new DatabaseQueryError(error.query, cause), error);
  }
  if (isServerError(error)) return withFramesOf(new DatabaseError(fieldsOf(error)), error);
  return error;
}

let installed = false;

/**
 * Replaces Drizzle's query errors for every driver and database of the process: every query goes
 * through PgPreparedQuery's `queryWithCache` (Drizzle 0.45), and a transaction's own failures (a
 * deferred constraint at COMMIT) through PgDatabase's `transaction`. test/platform/sql-values-in-logs
 * fails if a Drizzle upgrade moves either.
 */
export function installQueryErrorRedaction(): void {
  if (installed) return;
  installed = true;
  type Wrapped = (this: unknown, ...args: unknown[]) => Promise<unknown>;
  const wrap = (prototype: object, method: string) => {
    const target = prototype as Record<string, Wrapped>;
    const original = target[method];
    if (typeof original !== 'function') throw new Error(`drizzle-orm has no ${method} to wrap`);
    target[method] = async function (this: unknown, ...args: unknown[]) {
      try {
        return await original.apply(this, args);
      } catch (error) {
        throw withoutQueryValues(error);
      }
    };
  };
  wrap(PgPreparedQuery.prototype, 'queryWithCache');
  wrap(PgDatabase.prototype, 'transaction');
}
