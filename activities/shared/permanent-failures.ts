import { ApplicationFailure } from '@temporalio/common';
import { DATA_REFUSED } from '../../domain/permanent-failures.ts';

/**
 * Database errors no retry can cure (issue 20): PostgreSQL refusing the data itself, SQLSTATE class 22
 * (data exception: invalid text for jsonb, a numeric value out of range, a string too long, ...) and
 * class 23 (integrity constraint violation), except unique and exclusion violations, which a race
 * between two writers can cause and a retry (that reads the winner's row) can cure. The worker's
 * activity interceptor (platform/worker.ts) turns each into a non-retryable `DataRefused` failure, so
 * that an activity of any service is never retried for ever on data the database will always refuse.
 */
const RETRYABLE_IN_CLASS_23 = new Set(['23505', '23P01']);

/** Condition names of the SQLSTATEs most often met (the rest are named by their class). */
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
  '23514': 'check_violation',
};

interface DatabaseErrorFields {
  code?: unknown;
  constraint?: unknown;
  constraint_name?: unknown;
  column?: unknown;
  column_name?: unknown;
  table?: unknown;
  table_name?: unknown;
  cause?: unknown;
}

/** The first error of `error`'s cause chain carrying a SQLSTATE (postgres.js, PGlite, Drizzle's wrapper). */
function databaseErrorOf(error: unknown): DatabaseErrorFields | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const fields = current as DatabaseErrorFields;
    if (typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code)) return fields;
    current = fields.cause;
  }
  return undefined;
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
  const where = [
    ['table', text(database.table, database.table_name)],
    ['column', text(database.column, database.column_name)],
    ['constraint', text(database.constraint, database.constraint_name)],
  ]
    .filter(([, name]) => name)
    .map(([what, name]) => `${what} ${name}`);
  const condition =
    CONDITIONS[code] ?? (code.startsWith('22') ? 'data_exception' : 'integrity_constraint_violation');
  const message = `the database refused the data: SQLSTATE ${code} ${condition}${where.length ? ` (${where.join(', ')})` : ''}`;
  return ApplicationFailure.create({
    message,
    type: DATA_REFUSED,
    nonRetryable: true,
    details: [{ sqlState: code }],
  });
}
