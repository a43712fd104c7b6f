import { getTableName, type Table } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { listenOf } from '../../db/notifications.ts';

/**
 * Credential lookups answered from memory (decision 0065). Every request of every service checks a
 * credential (an access token, an API key, a user token, a merchant); without a cache that is one
 * query per request before the work starts.
 *
 * Revocation reaches every process at once: a statement trigger on each credential table sends
 * `NOTIFY platform_credentials_changed, '<table>'` when the transaction that changed it commits
 * (migration 0010), and each process LISTENs on the database it opened and forgets what it had cached
 * from that table. Safety bounds where notifications cannot help:
 * - nothing is cached until the process is listening (the first lookups, a database without LISTEN);
 * - when the listening connection is re-established, everything cached is forgotten (notifications
 *   sent while it was down are lost);
 * - an entry lives at most `CREDENTIAL_CACHE_TTL_MS`, and never past the credential's own expiry, so a
 *   connection that drops silently leaves a revoked credential usable for at most that long;
 * - a lookup that started before a change is not stored (a generation count per cache).
 * Keys are digests of what the caller presented, never the secret itself.
 */
export const CREDENTIAL_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const CHANNEL = 'platform_credentials_changed';
/** After a failed LISTEN, lookups go to the database; the next LISTEN is tried this much later. */
const LISTEN_RETRY_MS = 30_000;

interface Entry<V> {
  value: V;
  until: number;
}

class Store {
  readonly entries = new Map<string, Entry<unknown>>();
  generation = 0;
  constructor(readonly tables: ReadonlySet<string>) {}

  clear(): void {
    this.entries.clear();
    this.generation += 1;
  }
}

/** What one process knows of one database: its caches, and whether it is listening. */
class Feed {
  listening = false;
  private starting = false;
  private retryAt = 0;
  readonly stores = new Map<string, Store>();

  constructor(private readonly db: Database) {}

  /** True when cached answers may be used; otherwise starts listening (once at a time) and says false. */
  ready(now: number): boolean {
    if (this.listening) return true;
    if (!this.starting && now >= this.retryAt) void this.start();
    return false;
  }

  private async start(): Promise<void> {
    const listen = listenOf(this.db);
    if (!listen) {
      this.retryAt = Number.POSITIVE_INFINITY;
      return;
    }
    this.starting = true;
    try {
      await listen(
        CHANNEL,
        (table) => {
          for (const store of this.stores.values()) if (store.tables.has(table)) store.clear();
        },
        () => {
          for (const store of this.stores.values()) store.clear();
          this.listening = true;
        },
      );
    } catch {
      // The database refused LISTEN (or was unreachable): stay uncached, try again later.
      this.listening = false;
      this.retryAt = Date.now() + LISTEN_RETRY_MS;
    } finally {
      this.starting = false;
    }
  }

  store(name: string, tables: ReadonlySet<string>): Store {
    let store = this.stores.get(name);
    if (!store) {
      store = new Store(tables);
      this.stores.set(name, store);
    }
    return store;
  }
}

const feeds = new WeakMap<Database, Feed>();

function feedOf(db: Database): Feed | undefined {
  if (!listenOf(db)) return undefined;
  let feed = feeds.get(db);
  if (!feed) {
    feed = new Feed(db);
    feeds.set(db, feed);
  }
  return feed;
}

/**
 * Forgets at once, in this process, what was cached from `tables` of `db`: the writer of a revocation
 * calls it after its write, so its own next request cannot be answered from before the change (the
 * notification reaches this process too, but a few milliseconds later). A transaction's handle is not
 * known here: after a transaction, call it with the database the transaction ran on.
 */
export function forgetCredentials(db: Database, ...tables: Table[]): void {
  const feed = feeds.get(db);
  if (!feed) return;
  const names = new Set(tables.map((table) => getTableName(table)));
  for (const store of feed.stores.values()) {
    if ([...store.tables].some((table) => names.has(table))) store.clear();
  }
}

export interface CredentialCacheDefinition<V> {
  /** Unique per kind of credential. */
  name: string;
  /** The tables whose change makes an answer stale (the credential's and those it is joined with). */
  tables: readonly Table[];
  /** Whether "no such credential" is remembered too (for lookups where absence is an answer). */
  cacheAbsence?: boolean;
  /** The credential's own end of life, when it has one. */
  expiresAt?: (value: V) => Date;
}

export interface CredentialCache<V> {
  /** The cached answer for `key`, or `load()`'s (remembered when it may be). */
  lookup(db: Database, key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
}

export function credentialCache<V>(definition: CredentialCacheDefinition<V>): CredentialCache<V> {
  const tables = new Set(definition.tables.map((table) => getTableName(table)));
  return {
    async lookup(db, key, load) {
      const now = Date.now();
      const feed = feedOf(db);
      if (!feed?.ready(now)) return load();
      const store = feed.store(definition.name, tables);
      const hit = store.entries.get(key);
      if (hit && hit.until > now) return hit.value as V | undefined;
      if (hit) store.entries.delete(key);

      const generation = store.generation;
      const value = await load();
      if (store.generation !== generation || !feed.listening) return value;
      if (value === undefined && !definition.cacheAbsence) return value;
      const expiresAt = value !== undefined && definition.expiresAt?.(value).getTime();
      const until = Math.min(Date.now() + CREDENTIAL_CACHE_TTL_MS, expiresAt || Number.POSITIVE_INFINITY);
      // Oldest first out: a Map iterates in insertion order.
      if (store.entries.size >= MAX_ENTRIES)
        store.entries.delete(store.entries.keys().next().value as string);
      store.entries.set(key, { value, until });
      return value;
    },
  };
}
