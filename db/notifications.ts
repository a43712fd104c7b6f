import type { Database } from './database.ts';

/**
 * PostgreSQL `LISTEN` for the database behind a Drizzle instance, whichever driver opened it. The
 * credential caches (credentials/shared/credential-cache.ts) use it to hear of revocations from every
 * process sharing the database.
 *
 * `onListening` runs each time the subscription is (re)established: with postgres.js after every
 * reconnection of its dedicated listening connection, when notifications sent while it was away are lost,
 * so a subscriber treats it as "forget what you knew".
 */
export type Listen = (
  channel: string,
  onPayload: (payload: string) => void,
  onListening: () => void,
) => Promise<void>;

const listens = new WeakMap<Database, Listen>();

/** Called by `openDatabase` for the instance it returns. */
export function registerListen(db: Database, listen: Listen): void {
  listens.set(db, listen);
}

/** How to listen on `db`'s database, or undefined (a transaction's handle, a database opened elsewhere). */
export function listenOf(db: Database): Listen | undefined {
  return listens.get(db);
}
