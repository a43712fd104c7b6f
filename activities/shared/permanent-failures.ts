import { ApplicationFailure } from '@temporalio/common';
import { sqlStateDescription } from '../../db/query-errors.ts';
import { DATA_REFUSED } from '../../domain/permanent-failures.ts';

/**
 * Database errors no retry can cure (issue 20): PostgreSQL refusing the data itself, SQLSTATE class 22
 * (data exception: invalid text for jsonb, a numeric value out of range, a string too long, ...) and
 * class 23 (integrity constraint violation), except unique and exclusion violations, which a race
 * between two writers can cause and a retry (that reads the winner's row) can cure. The worker's
 * activity interceptor (cmd/worker.ts) turns each into a non-retryable `DataRefused` failure, so
 * that an activity of any service is never retried for ever on data the database will always refuse.
 */
const RETRYABLE_IN_CLASS_23 = new Set(['23505', '23P01']);

interface DatabaseErrorFields {
  code?: unknown;
  constraint?: unknown;
  constraint_name?: unknown;
  column?: unknown;
  column_name?: unknown;
  table?: unknown;
  table_name?: unknown;
  data_type_name?: unknown;
  cause?: unknown;
}

/**
 * The deepest error of `error`'s cause chain carrying a SQLSTATE: the server's error (postgres.js,
 * PGlite) or its value-free copy (db/query-errors.ts), which name the table, column and constraint,
 * rather than a wrapper that carries only the code.
 */
function databaseErrorOf(error: unknown): DatabaseErrorFields | undefined {
  let found: DatabaseErrorFields | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const fields = current as DatabaseErrorFields;
    if (typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code)) found = fields;
    current = fields.cause;
  }
  return found;
}

/** The SQLSTATE of a database error anywhere in `error`'s cause chain. */
export const sqlStateOf = (error: unknown): string | undefined => databaseErrorOf(error)?.code as string;

/** Whether a SQLSTATE says the database refuses the data for good. */
export function isPermanentSqlState(code: string): boolean {
  if (code.startsWith('22')) return true;
  return code.startsWith('23') && !RETRYABLE_IN_CLASS_23.has(code);
}

const text = (...values: unknown[]) => values.find((value): value is string => typeof value === 'string');

/**
 * The non-retryable failure of a permanent database refusal, or undefined for any other error. Its
 * message names the SQLSTATE, its condition and the table, column or constraint, never a value (the
 * database's own message and Drizzle's may quote the parameters).
 */
export function permanentFailureOf(error: unknown): ApplicationFailure | undefined {
  const database = databaseErrorOf(error);
  const code = database?.code as string | undefined;
  if (!database || !code || !isPermanentSqlState(code)) return undefined;
  const message = `the database refused the data: ${sqlStateDescription({
    code,
    table_name: text(database.table, database.table_name),
    column_name: text(database.column, database.column_name),
    data_type_name: text(database.data_type_name),
    constraint_name: text(database.constraint, database.constraint_name),
  })}`;
  return ApplicationFailure.create({
    message,
    type: DATA_REFUSED,
    nonRetryable: true,
    details: [{ sqlState: code }],
  });
}
