import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema/index.ts';

/**
 * The Drizzle database the platform uses, whichever driver is behind it (postgres.js or PGlite). Its own
 * module so that what `openDatabase` wires up (db/notifications.ts) can name it without importing
 * db/client.ts back.
 */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
