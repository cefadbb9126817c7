import type { SqliteDatabase, SqliteStatement } from "kysely";

/** What the cache needs from a better-sqlite3 database (and its statements). */
export interface PreparingDatabase {
  close(): unknown;
  prepare(sql: string): SqliteStatement & { readonly busy?: boolean };
}

/** How many distinct SQL texts stay prepared per database by default. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256;

/**
 * Wraps a better-sqlite3 database for kysely's SqliteDialect so each distinct SQL text is
 * prepared once and reused (kysely's SQLite driver calls `prepare` on every query). The cache is
 * a bounded LRU keyed by the exact SQL text; parameters are bound per call, so reuse never
 * changes a result. A cached statement that is still mid-iteration (a streamed query) is not
 * handed out again: that call gets a fresh, uncached statement. Schema changes need no
 * invalidation: SQLite re-prepares a statement whose schema changed when it next runs.
 */
export function withStatementCache(
  database: PreparingDatabase,
  maxStatements: number = DEFAULT_STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const cache = new Map<string, SqliteStatement & { readonly busy?: boolean }>();
  return {
    close() {
      cache.clear();
      database.close();
    },
    prepare(sql) {
      const hit = cache.get(sql);
      if (hit !== undefined) {
        if (hit.busy === true) return database.prepare(sql);
        // Map keeps insertion order: re-inserting marks the entry most recently used.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const statement = database.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > maxStatements) {
        const oldest = cache.keys().next();
        if (oldest.done !== true) cache.delete(oldest.value);
      }
      return statement;
    },
  };
}
