import { log, upsertMemo } from '@temporalio/workflow';
import { dataRefusalOf } from '../../domain/permanent-failures.ts';

/**
 * Runs a read-model write of an open-banking process. When the database refuses its data for good
 * (`DataRefused`, issue 20: text from the caller or the bank that PostgreSQL will never take), the
 * refusal is kept on the process with its reason (memo `lastRefusal`, a warning in the log) and
 * `otherwise(reason)` decides how the process goes on (recorded without the refused text, or ended
 * FAILED with the reason), instead of the process failing or being retried for ever. Any other
 * failure is thrown as before.
 */
export async function unlessRefused<T>(
  what: string,
  ids: Record<string, string>,
  write: () => Promise<T>,
  otherwise: (reason: string) => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const reason = dataRefusalOf(error);
    if (reason === undefined) throw error;
    upsertMemo({ lastRefusal: { at: new Date().toISOString(), what, reason } });
    log.warn(`the database refused ${what}`, { ...ids, reason });
    return otherwise(reason);
  }
}

/** The reason recorded in place of a reason the database refused. */
export const unrecordableReason = (refusal: string) => `the reason could not be recorded: ${refusal}`;
